package store

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPruneRepacks(t *testing.T) {
	root := t.TempDir()
	paths := bulkTree(t, root, 20)
	s := openStore(t, root)
	captureEditSeal(t, s, root, "1", paths)
	// Turn 2 touches half the files: turn 1's pre-images of the other half
	// become garbage once turn 1 is dropped.
	captureEditSeal(t, s, root, "2", paths[:10])
	before := map[string]string{}
	for _, p := range paths {
		before[p] = rd(t, root, p)
	}
	dry, err := s.Prune(PruneOptions{Keep: 1, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	packsBefore := dirNames(t, filepath.Join(root, storeDir, "packs"))
	res, err := s.Prune(PruneOptions{Keep: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Blobs == 0 || res.Blobs != dry.Blobs {
		t.Errorf("prune freed %d blobs, dry run said %d", res.Blobs, dry.Blobs)
	}
	if packsAfter := dirNames(t, filepath.Join(root, storeDir, "packs")); strings.Join(packsAfter, ",") == strings.Join(packsBefore, ",") {
		t.Errorf("packs unchanged by prune: %v", packsAfter)
	}
	s2 := openStore(t, root)
	if fs, err := s2.Verify(); err != nil || len(fs) != 0 {
		t.Errorf("verify after prune: %v %v", fs, err)
	}
	r := rewind(t, s2, "2")
	if len(r.Failed) != 0 || len(r.Restored) != 10 {
		t.Fatalf("rewind after prune: %+v", r)
	}
	undo(t, s2)
	for p, w := range before {
		if got := rd(t, root, p); got != w {
			t.Errorf("%s after rewind and undo: %q", p, got)
		}
	}
}

// TestPruneCompressesStoredLoose: a small capture keeps blobs up to
// looseStoredMax as they are; prune puts the live ones into a pack,
// compressed, and removes the loose files, a dry run only counting them.
// A loose blob whose bytes no longer hash to its name stays where it is.
func TestPruneCompressesStoredLoose(t *testing.T) {
	root := t.TempDir()
	var paths []string
	sizes := []int{100, storedMax + 1, 6000, looseStoredMax, looseStoredMax + 1}
	for i, size := range sizes {
		p := fmt.Sprintf("f%d.txt", i)
		wr(t, root, p, strings.Repeat(fmt.Sprintf("line %d of a file an agent edits\n", i), size/32+1)[:size])
		paths = append(paths, p)
	}
	wr(t, root, "damaged.txt", strings.Repeat("a file whose blob is damaged\n", 100))
	s := openStore(t, root)
	if _, err := s.Capture("1", TurnMeta{}, append(paths, "damaged.txt")); err != nil {
		t.Fatal(err)
	}
	blobs := filepath.Join(root, storeDir, "blobs")
	blobFile := func(p string) string {
		img, _, _ := s.ReadDisk(p)
		return filepath.Join(blobs, img.SHA256.String()+".zst")
	}
	for i, p := range paths {
		z, err := os.ReadFile(blobFile(p))
		if err != nil {
			t.Fatal(err)
		}
		_, stored := storedPayload(z)
		if want := i < 4; stored != want {
			t.Errorf("%s (%d bytes): kept as it is %v, want %v", p, len(rd(t, root, p)), stored, want)
		}
	}
	bad := blobFile("damaged.txt")
	z, _ := os.ReadFile(bad)
	z[len(z)-1] ^= 1
	if err := os.WriteFile(bad, z, 0o600); err != nil {
		t.Fatal(err)
	}

	dry, err := s.Prune(PruneOptions{Keep: 1, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if dry.Packed != 4 || dry.BytesFreed <= 0 {
		t.Errorf("dry run: %+v, want 4 blobs packed and bytes freed", dry)
	}
	if n := len(dirNames(t, blobs)); n != 6 {
		t.Fatalf("a dry run changed blobs/: %d files", n)
	}
	res, err := s.Prune(PruneOptions{Keep: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Packed != 4 {
		t.Errorf("prune packed %d blobs, want 4", res.Packed)
	}
	left := dirNames(t, blobs)
	if len(left) != 2 || !slices.Contains(left, filepath.Base(bad)) || !slices.Contains(left, filepath.Base(blobFile(paths[4]))) {
		t.Errorf("blobs/ after prune: %v, want the compressed and the damaged one", left)
	}
	s2 := openStore(t, root)
	fs, err := s2.Verify()
	if err != nil || len(fs) != 1 || !strings.Contains(fmt.Sprint(fs), filepath.Base(bad)[:12]) {
		t.Errorf("verify after prune: %v %v, want the damaged blob alone", fs, err)
	}
	for _, p := range paths {
		wr(t, root, p, "agent\n")
	}
	r := rewind(t, s2, "1")
	if len(r.Restored) != len(paths) {
		t.Fatalf("rewind after prune: %+v", r)
	}
	for i, p := range paths {
		if got := rd(t, root, p); len(got) != sizes[i] {
			t.Errorf("%s after rewind: %d bytes", p, len(got))
		}
	}
}
