package store

import "fmt"

// decide says what to do to turn now into want.
func (s *Store) decide(now, want Image) (Action, string) {
	if now.Kind == ImageOther || now.Kind == ImageDir && want.Kind != ImageDir {
		return ActFail, "not touched: it " + otherReason(now) + " now"
	}
	switch want.Kind {
	case ImageDir:
		// A folder where the command left a file or a link: what stands
		// there goes first (it is kept), then the folder is made.
		if now.Kind == ImageDir && (want.Mode == 0 || now.Mode == want.Mode) {
			return ActKeep, ""
		}
		return ActRestore, ""
	case ImageFifo:
		if now.Kind == ImageFifo && (want.Mode == 0 || now.Mode == want.Mode) {
			return ActKeep, ""
		}
		return ActRestore, "" // made again (mkfifo), what stands there removed first
	case ImageSocket, ImageDevice:
		if now.Kind == want.Kind {
			return ActKeep, ""
		}
		return ActFail, "not restored: " + specialGone(want.Kind)
	case ImageSkipped:
		if want.Purged() {
			return ActFail, "not restored: " + PurgedReason
		}
		return ActFail, "not restored: its bytes were not kept (" + want.Reason + ")"
	case ImageAbsent:
		if now.Kind == ImageAbsent {
			return ActKeep, ""
		}
		return ActDelete, ""
	case ImageLink:
		if sameBytes(now, want) {
			return ActKeep, ""
		}
		return ActRestore, ""
	case ImageContent:
		sum, err := blobOf(want)
		if err != nil {
			return ActFail, fmt.Sprintf("not restored: blob name %q is not 64 hex digits", blobText(want.SHA256))
		}
		if sameBytes(now, want) {
			if want.Mode != 0 && now.Mode != want.Mode {
				return ActRestore, ""
			}
			return ActKeep, ""
		}
		if !s.hasBlob(sum) {
			return ActFail, "not restored: its kept bytes (blob " + sum.Short() + ") are missing from the store"
		}
		return ActRestore, ""
	}
	return ActFail, fmt.Sprintf("not restored: unknown kind %q", want.Kind)
}
