package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
	"github.com/ckpt-dev/ckpt/store/internal/pack"
)

// Forty bulk turns write eighty packs; a repack leaves at most packsMax,
// the lookup index covers them all, and a lookup then reads no pack's
// own index. Every turn still rewinds exactly, in a fresh store too.
func TestRepackBoundsPacks(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	SetLooseMax(s, 1)
	var turns [][]string
	for i := range 40 {
		var paths []string
		for j := range 2 + i%3 {
			p := fmt.Sprintf("t%02d/f%d.txt", i, j)
			wr(t, root, p, strings.Repeat(fmt.Sprintf("turn %d file %d\n", i, j), 10+i*j))
			paths = append(paths, p)
		}
		captureEditSeal(t, s, root, fmt.Sprint(i+1), paths)
		turns = append(turns, paths)
	}
	packs, _ := s.PackCounts()
	if packs != 80 {
		t.Fatalf("want a pack per capture and per seal, got %d", packs)
	}
	if !s.RepackDue() {
		t.Fatal("80 packs, no index: a repack should be due")
	}
	res, err := s.Repack(false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Packs > packsMax || res.Merged < 2 {
		t.Errorf("repack: %+v", res)
	}
	if n := len(dirNames(t, filepath.Join(root, storeDir, "packs"))); n != res.Packs {
		t.Errorf("%d packs on disk, the repack says %d", n, res.Packs)
	}
	if s.RepackDue() {
		t.Error("a repack is due right after one")
	}
	s2 := openStore(t, root)
	m, err := s2.loadMidx()
	if err != nil || m == nil {
		t.Fatalf("lookup index: %v", err)
	}
	// A blob of turn 7 is found through the index alone.
	sum := blob.Of([]byte(rd(t, root, turns[6][0])))
	s2.packs.ensure(s2)
	if _, ok := s2.packs.findLoaded(s2, sum); !ok {
		t.Error("a sealed blob is not found after the repack")
	}
	for _, p := range s2.packs.files {
		if p.ents != nil {
			t.Errorf("pack %s had its own index read, though the lookup index covers it", p.name)
		}
	}
	if fs, err := s2.Verify(); err != nil || len(fs) != 0 {
		t.Fatalf("verify after repack: %v %v", fs, err)
	}
	r := rewind(t, s2, "1")
	if len(r.Failed) != 0 {
		t.Fatalf("rewind after repack: %+v", r.Failed)
	}
	for i, paths := range turns {
		for j, p := range paths {
			want := strings.Repeat(fmt.Sprintf("turn %d file %d\n", i, j), 10+i*j)
			if got := rd(t, root, p); got != want {
				t.Errorf("%s after rewinding everything: %q", p, got)
			}
		}
	}
}

// A lookup index naming a pack that is gone (a repack in another process
// removed it after this one read the index) finds the blob in the pack
// that replaced it, which the index does not cover.
func TestMidxStaleFallsBack(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	SetLooseMax(s, 1)
	for i := range 6 {
		captureEditSeal(t, s, root, fmt.Sprint(i+1), []string{fmt.Sprintf("a%d.txt", i), fmt.Sprintf("b%d.txt", i)})
	}
	if _, err := s.Repack(false); err != nil {
		t.Fatal(err)
	}
	// Drop the index and replace it with one for a pack that is not there.
	os.WriteFile(filepath.Join(root, storeDir, midxFile), pack.EncodeMidx([]pack.Named{{Name: "000000000000000000000000.pack", Ents: []pack.Entry{{Sum: blob.Of([]byte("edited in 3 a2.txt\n")), Off: 12, ZLen: 5, Size: 5}}}}), 0o600)
	s2 := openStore(t, root)
	r := rewind(t, s2, "1")
	if len(r.Failed) != 0 {
		t.Fatalf("rewind with a stale index: %+v", r.Failed)
	}
	if fs, _ := s2.Verify(); len(fs) != 0 {
		t.Logf("verify names the stale index: %v", fs)
	}
}

// Asking whether a repack is due (a hook does, at every turn) reads no
// pack's own index, however many blobs an uncovered pack holds, and it
// counts packs as the listing does, before and after a repack.
func TestRepackDueReadsNoPackIndex(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	SetLooseMax(s, 1)
	for i := range 3 {
		paths := []string{fmt.Sprintf("a%d.txt", i), fmt.Sprintf("b%d.txt", i)}
		for _, p := range paths {
			wr(t, root, p, "file "+p+"\n")
		}
		captureEditSeal(t, s, root, fmt.Sprint(i+1), paths)
	}
	s2 := openStore(t, root)
	packs, _ := s2.PackCounts()
	if packs != 6 {
		t.Fatalf("want a pack per capture and per seal, got %d", packs)
	}
	_ = s2.RepackDue()
	if len(s2.packs.files) != 0 || len(s2.packs.where) != 0 {
		t.Errorf("RepackDue opened %d packs and indexed %d blobs", len(s2.packs.files), len(s2.packs.where))
	}
	if _, err := s2.Repack(true); err != nil {
		t.Fatal(err)
	}
	s3 := openStore(t, root)
	n := len(dirNames(t, filepath.Join(root, storeDir, "packs")))
	if got, _ := s3.PackCounts(); got != n {
		t.Errorf("PackCounts says %d packs, packs/ holds %d", got, n)
	}
	if s3.RepackDue() {
		t.Error("a repack is due right after a full one")
	}
}
