package store

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Hooks keep each call's blobs loose; once packLooseAt of them have piled
// up the background pass is due and packs them: the loose copies go, one
// pack holds them (small ones as they are, larger ones compressed), every
// turn still rewinds exactly and verify finds nothing. Below the number,
// nothing is due for them, and maintain --now packs them all the same.
func TestRepackPacksLoose(t *testing.T) {
	defer func(n int) { packLooseAt = n }(packLooseAt)
	packLooseAt = 40
	root := t.TempDir()
	s := openStore(t, root)
	var turns [][]string
	content := func(i, j int) string {
		if j == 0 {
			return strings.Repeat(fmt.Sprintf("turn %d: a file past storedMax\n", i), 60)
		}
		return fmt.Sprintf("turn %d file %d\n", i, j)
	}
	for i := range 8 {
		paths := []string{fmt.Sprintf("big%d.txt", i), fmt.Sprintf("small%d.txt", i)}
		for j, p := range paths {
			wr(t, root, p, content(i, j))
		}
		captureEditSeal(t, s, root, fmt.Sprint(i+1), paths)
		turns = append(turns, paths)
	}
	_, loose := s.PackCounts()
	if loose < 30 || loose >= packLooseAt {
		t.Fatalf("%d loose blobs, want between 30 and %d", loose, packLooseAt)
	}
	if s.RepackDue() {
		t.Fatal("a repack is due with fewer loose blobs than packLooseAt and no packs")
	}
	for i := 8; i < 12; i++ {
		paths := []string{fmt.Sprintf("small%d.txt", i)}
		wr(t, root, paths[0], content(i, 1))
		captureEditSeal(t, s, root, fmt.Sprint(i+1), paths)
		turns = append(turns, paths)
	}
	if _, loose = s.PackCounts(); loose < packLooseAt {
		t.Fatalf("%d loose blobs, want at least %d", loose, packLooseAt)
	}
	if !s.MaintenanceDue() {
		t.Fatal("no maintenance due with packLooseAt loose blobs")
	}
	res, err := s.Maintain(Budget{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Repack == nil || res.Repack.Loose != loose {
		t.Fatalf("maintain: %+v, want %d loose blobs packed", res.Repack, loose)
	}
	if packs, left := s.PackCounts(); left != 0 || packs != 1 {
		t.Errorf("after the pass: %d packs, %d loose", packs, left)
	}
	if s.RepackDue() {
		t.Error("a repack is due right after one")
	}
	s2 := openStore(t, root)
	if fs, err := s2.Verify(); err != nil || len(fs) != 0 {
		t.Fatalf("verify: %v %v", fs, err)
	}
	if r := rewind(t, s2, "1"); len(r.Failed) != 0 {
		t.Fatalf("rewind: %+v", r.Failed)
	}
	for i, paths := range turns {
		for _, p := range paths {
			j := 1
			if strings.HasPrefix(p, "big") {
				j = 0
			}
			if got := rd(t, root, p); got != content(i, j) {
				t.Errorf("%s after rewinding everything: %q", p, got)
			}
		}
	}
	// A few loose ones are packed by maintain --now (force) only.
	wr(t, root, "late.txt", "late")
	captureEditSeal(t, s2, root, "13", []string{"late.txt"})
	if _, left := s2.PackCounts(); left == 0 || s2.RepackDue() {
		t.Fatalf("%d loose after a late turn; due %v", left, s2.RepackDue())
	}
	if res, err := s2.Maintain(Budget{}, true); err != nil || res.Repack.Loose == 0 {
		t.Fatalf("maintain --now: %+v %v", res, err)
	}
	if _, left := s2.PackCounts(); left != 0 {
		t.Errorf("%d loose after maintain --now", left)
	}
	if n := len(dirNames(t, filepath.Join(root, storeDir, "blobs"))); n != 0 {
		t.Errorf("%d files left in blobs/", n)
	}
}

// The compressed copies of big files stay loose (packStored leaves them),
// so however many of them pile up, no background pass is due for them: it
// would run at every turn's end and pack nothing.
func TestBigLooseBlobsAreNotDue(t *testing.T) {
	defer func(n int) { packLooseAt = n }(packLooseAt)
	packLooseAt = 4
	root := t.TempDir()
	s := openStore(t, root)
	x := uint64(1)
	noise := func() string { // incompressible, past looseStoredMax
		b := make([]byte, looseStoredMax*2)
		for j := range b {
			x = x*6364136223846793005 + 1442695040888963407
			b[j] = byte(x >> 56)
		}
		return string(b)
	}
	var paths []string
	for i := range 3 {
		p := fmt.Sprintf("big%d.bin", i)
		wr(t, root, p, noise())
		paths = append(paths, p)
	}
	if _, err := s.Capture("1", TurnMeta{}, paths); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		wr(t, root, p, noise())
	}
	if err := s.Seal("1", paths); err != nil {
		t.Fatal(err)
	}
	if _, loose := s.PackCounts(); loose < packLooseAt {
		t.Fatalf("%d loose blobs, want at least %d", loose, packLooseAt)
	}
	if s.RepackDue() || s.MaintenanceDue() {
		t.Fatalf("due for big loose blobs a pass cannot pack: repack %v, maintenance %v", s.RepackDue(), s.MaintenanceDue())
	}
}
