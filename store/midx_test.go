package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
)

// midxStore is a store whose blobs are all in packs packs.idx covers.
func midxStore(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	s := openStore(t, root)
	SetLooseMax(s, 1)
	for i := range 6 {
		captureEditSeal(t, s, root, fmt.Sprint(i+1), []string{fmt.Sprintf("a%d.txt", i), fmt.Sprintf("b%d.txt", i)})
	}
	if _, err := s.Repack(false); err != nil {
		t.Fatal(err)
	}
	return root
}

// A lookup in packs (a hook's, asking whether it holds a file's bytes
// already) reads the head of packs.idx and the entries of one first byte
// of the hash, not the whole index, which holds 60 bytes a blob.
func TestMidxLookupReadsHead(t *testing.T) {
	root := midxStore(t)
	s := openStore(t, root)
	sum := blob.Of([]byte("edited in 3 a2.txt\n"))
	if _, ok := s.packs.find(s, sum, false); !ok {
		t.Fatal("a packed blob is not found")
	}
	if s.packs.midx == nil || s.packs.midx.Whole() {
		t.Fatalf("the lookup read packs.idx whole (%v)", s.packs.midx)
	}
}

// Entries of packs.idx damaged past its head are found by the lookup that
// reads them: the packs' own indexes serve instead, and nothing is lost.
func TestMidxDamagedEntriesFallBack(t *testing.T) {
	root := midxStore(t)
	name := filepath.Join(root, storeDir, midxFile)
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) - 4 - 60; i > len(b)/2; i -= 60 { // the later entries name a pack the index does not list
		b[i+32] = 0xff
	}
	if err := os.WriteFile(name, b, 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, root)
	for i := range 6 {
		for _, p := range []string{"a", "b"} {
			want := fmt.Sprintf("edited in %d %s%d.txt\n", i+1, p, i)
			got, err := s.readBlob(blob.Of([]byte(want)), int64(len(want)))
			if err != nil || string(got) != want {
				t.Fatalf("the blob of %q with packs.idx damaged: %q, %v", want, got, err)
			}
		}
	}
	if s.packs.midxBad == nil {
		t.Error("no lookup found packs.idx damaged")
	}
}
