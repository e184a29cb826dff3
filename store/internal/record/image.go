package record

import (
	"encoding/json"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
)

// The types a record holds. The store gives them to its callers under
// the same names (store.Image, store.Kind, …).

// Kind says what an entry of the log is.
type Kind string

// Entry kinds.
const (
	KindAgent  Kind = "agent"
	KindRewind Kind = "rewind"
	KindUndo   Kind = "undo"
	KindRedo   Kind = "redo"
)

// ImageKind says what a path held at some moment.
type ImageKind string

// Image kinds. The first three are the seed format's "pre" kinds.
const (
	ImageContent ImageKind = "content" // a regular file; bytes in a blob
	ImageAbsent  ImageKind = "absent"  // no file
	ImageSkipped ImageKind = "skipped" // a file too large to keep (Reason says why)
	ImageLink    ImageKind = "symlink" // a symbolic link (Link holds its target)
	// ImageDir is a folder (Mode holds its permission bits): what a path
	// held before or after a command changed its kind (a file replaced by
	// a folder, a folder by a file or a link), so a rewind puts the right
	// kind of entry back there, and its undo the other.
	ImageDir ImageKind = "dir"
	// A special file a shell command made or removed, Mode its permission
	// bits: a named pipe, which a rewind makes again (mkfifo), and a
	// socket or a device node, which it does not. A reader that predates
	// them reports a path wanted as one as of an unknown kind, not
	// restored, and never writes over one.
	ImageFifo   ImageKind = "fifo"
	ImageSocket ImageKind = "socket"
	ImageDevice ImageKind = "device"
)

// Special reports whether k is a special file's kind.
func (k ImageKind) Special() bool { return k == ImageFifo || k == ImageSocket || k == ImageDevice }

// Image is what one path held at one moment: before the agent's write
// (a pre-image), after it (a post-image), or before an operation.
type Image struct {
	Kind   ImageKind `json:"kind"`
	SHA256 blob.ID   `json:"sha256,omitzero"` // SHA-256 of the bytes (content, and skipped when hashed); zero when none
	Size   int64     `json:"bytes,omitempty"`
	Mode   uint32    `json:"mode,omitempty"`   // permission bits; 0 when unknown (seed stores), ModeZero for none at all
	Link   string    `json:"link,omitempty"`   // symlink target
	Reason string    `json:"reason,omitempty"` // why skipped
	Kept   bool      `json:"kept,omitempty"`   // bytes are in a blob (content under the size limit)
}

// ModeZero is the Mode of a file or folder with no permission bits at
// all (mode 000), which 0, "unknown", cannot say. It is written as
// "mode":0, where an unknown mode is left out: a reader that predates it
// reads that as unknown, as it read every mode 000 before. The bit is
// none of the permission bits, nor of fs.FileMode's, so masking a Mode
// with fs.ModePerm gives 0 for it.
const ModeZero uint32 = 1 << 16

// PermMode is the Mode of permission bits perm, as read from the disk:
// ModeZero for none.
func PermMode(perm uint32) uint32 {
	if perm == 0 {
		return ModeZero
	}
	return perm
}

// MarshalJSON writes img as the fast encoder does, ModeZero as "mode":0.
func (img Image) MarshalJSON() ([]byte, error) { return appendImage(nil, &img), nil }

// UnmarshalJSON reads an image, "mode":0 as ModeZero (its absence is 0,
// unknown).
func (img *Image) UnmarshalJSON(b []byte) error {
	type plain Image
	var aux struct {
		plain
		Mode *uint32 `json:"mode"`
	}
	aux.plain = plain(*img) // a repeated key adds to what an earlier one set, as encoding/json does
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*img = Image(aux.plain)
	if aux.Mode != nil {
		img.Mode = PermMode(*aux.Mode)
	}
	return nil
}

// Source names where an agent turn came from, as the agent itself knows it.
type Source struct {
	Agent   string `json:"agent,omitempty"`
	Session string `json:"session,omitempty"`
	Prompt  string `json:"prompt,omitempty"`
	// Transcript is the file where the agent keeps the session's
	// conversation, as its hook named it (absolute; raw: escape before
	// showing). ckpt only reads it, to show what was asked and answered.
	Transcript string `json:"transcript,omitempty"`
}

// Action is what an operation will do to one path.
type Action string

// Plan actions.
const (
	ActRestore Action = "restore" // write bytes (or a link) back
	ActDelete  Action = "delete"  // remove the file
	ActKeep    Action = "keep"    // already as wanted; nothing written
	ActFail    Action = "fail"    // cannot be restored (Reason says why)
	ActLeave   Action = "leave"   // left as it is now, as asked (Plan.Keep)
)

// Failure is a path an operation could not put back.
type Failure struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// PurgedReason is the reason of an image whose bytes ckpt purge removed:
// such an image is of kind "skipped" (so a reader older than purge also
// reports it as not restorable) with exactly this reason.
const PurgedReason = "purged from the store (ckpt purge)"

// Purged reports whether img's bytes were purged.
func (img Image) Purged() bool { return img.Kind == ImageSkipped && img.Reason == PurgedReason }
