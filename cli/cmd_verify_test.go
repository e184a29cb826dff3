package cli

import (
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store"
)

// TestFindingWords: each kind of finding reads as verify's reasons always
// have (CONTRACT.md's "reason" of verify --json).
func TestFindingWords(t *testing.T) {
	sum, err := store.ParseBlobID(strings.Repeat("ab", 32))
	if err != nil {
		t.Fatal(err)
	}
	named := []string{"ops/op-1.steps", "turns/1.log"}
	for _, tc := range []struct {
		f    store.Finding
		want string
	}{
		{store.Finding{Kind: store.FindUnreadable, Detail: "permission denied"}, "unreadable: permission denied"},
		{store.Finding{Kind: store.FindDamagedRecord, Line: 3}, "record on line 3 is damaged (checksum or JSON)"},
		{store.Finding{Kind: store.FindTornRecord, Bytes: 17}, "its last record is torn (17 bytes after the last whole record); the next capture cuts it"},
		{store.Finding{Kind: store.FindNoTurnRecord}, "does not start with a turn record"},
		{store.Finding{Kind: store.FindNewerFormat, Detail: "written by a newer ckpt"}, "written by a newer ckpt"},
		{store.Finding{Kind: store.FindNewerOp, ID: "op-2", Detail: "written by a newer ckpt"}, "operation op-2 was written by a newer ckpt"},
		{store.Finding{Kind: store.FindBadPath, Record: "pre", Path: "../x", Detail: "outside the root: refused"}, `a pre record names "../x": outside the root: refused`},
		{store.Finding{Kind: store.FindBadSeed, Detail: "not JSON"}, "not JSON"},
		{store.Finding{Kind: store.FindSeedBlobName, ID: "4", Path: "9f86d0"}, `turn 4 names blob "9f86d0", which is not 64 hex digits`},
		{store.Finding{Kind: store.FindSeedBlobName, ID: "5", Path: strings.Repeat("0", 64), Detail: "blob name " + strings.Repeat("0", 64) + " is all zeros, the name of no blob"}, "turn 5: blob name " + strings.Repeat("0", 64) + " is all zeros, the name of no blob"},
		{store.Finding{Kind: store.FindNotBlob}, "not a blob: the name is not 64 hex digits (with .zst) or it is not a file"},
		{store.Finding{Kind: store.FindDamagedBlob, Detail: "does not match its hash", Named: named}, "does not match its hash, named by ops/op-1.steps, turns/1.log"},
		{store.Finding{Kind: store.FindDamagedBlob, Detail: "does not match its hash"}, "does not match its hash"},
		{store.Finding{Kind: store.FindLostPack, Detail: "bad trailer"}, "unreadable, so the blobs it held are lost: bad trailer"},
		{store.Finding{Kind: store.FindBadPackIndex, Detail: "bad magic"}, "bad magic (only a lookup index: the next repack writes it again)"},
		{store.Finding{Kind: store.FindNotPack}, "not a pack: the name does not end in .pack"},
		{store.Finding{Kind: store.FindUnindexed, Blob: sum, Pack: "p1.pack"}, "does not locate blob " + sum.String() + " of packs/p1.pack (only a lookup index: the next repack writes it again)"},
		{store.Finding{Kind: store.FindBlobSize, Blob: sum, Size: 5, Want: 6, Named: named[1:]}, "blob " + sum.String() + " is lost: 5 bytes by the pack's index but 6 by its records, named by turns/1.log"},
		{store.Finding{Kind: store.FindLostBlob, Blob: sum, Detail: "does not decompress"}, "blob " + sum.String() + " is lost: does not decompress"},
		{store.Finding{Kind: store.FindMissingBlob, Named: named}, "missing, named by ops/op-1.steps, turns/1.log"},
		{store.Finding{Kind: store.FindDamagedConversation, Detail: "unexpected end of JSON input"}, "conversation file is damaged (unexpected end of JSON input): show --conversation cannot show it; the turn's records are untouched"},
		{store.Finding{Kind: store.FindNotConversation}, "not a conversation file: the name is no turn's (<turn>.json)"},
	} {
		t.Run(string(tc.f.Kind), func(t *testing.T) {
			if got := findingWords(tc.f); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
