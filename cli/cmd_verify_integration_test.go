package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --- damage ---

func TestCorruptionFoundAndContained(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a 0\n", "b.txt": "b 0\n", "c.txt": "c 0\n", "d.txt": "d 0\n"})
	all := []string{"a.txt", "b.txt", "c.txt", "d.txt"}
	p.turn(t, "1", "four files", all, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "a 1\n", "b.txt": "b 1\n", "c.txt": "c 1\n", "d.txt": "d 1\n"})
	})
	ckptOK(t, p.root, "capture", "--turn", "2", "e.txt")
	writeText(t, p.root, "e.txt", "e 2\n")
	// The record file the seal appends to is the one that changes with it
	// (caches, a turn's path index among them, the sweeps' notes of file
	// tools' writes, and locks aside).
	storeBefore := snapshotDir(t, storeFolder(p.root))
	ckptOK(t, p.root, "seal", "--turn", "2", "e.txt")
	var records []string
	for _, d := range diffPaths(storeBefore, snapshotDir(t, storeFolder(p.root))) {
		if !strings.Contains(d, "cache") && !strings.HasSuffix(d, ".idx") && !strings.Contains(d, "lock") && !strings.HasPrefix(d, "blobs/") && !strings.Contains(d, "error") && d != "edits.log" {
			records = append(records, d)
		}
	}
	if len(records) != 1 {
		t.Fatalf("want one record file changed by seal, found %v", records)
	}
	record := filepath.Join(storeFolder(p.root), records[0])

	// A flipped byte, a missing blob, a blob holding another file's bytes,
	// and a record cut short.
	flipped := blobFile(t, p.root, "a 0\n")
	b, err := os.ReadFile(flipped)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x5a
	if err := os.WriteFile(flipped, b, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := blobFile(t, p.root, "b 0\n")
	if err := os.Remove(missing); err != nil {
		t.Fatal(err)
	}
	swapped := blobFile(t, p.root, "d 0\n")
	other, err := os.ReadFile(blobFile(t, p.root, "c 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(swapped, other, 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(record)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(record, fi.Size()-7); err != nil {
		t.Fatal(err)
	}

	r := ckpt(t, p.root, "verify")
	if r.Code == 0 {
		t.Fatalf("verify passed a damaged store\n%s", r)
	}
	for _, f := range []string{flipped, missing, swapped, record} {
		// A missing blob may be named without its suffix: which form was
		// meant cannot be known once it is gone.
		if name := strings.TrimSuffix(filepath.Base(f), ".zst"); !strings.Contains(r.Stdout+r.Stderr, name) {
			t.Errorf("verify does not name the damaged %s\n%s", name, r)
		}
	}
	if name := filepath.Base(blobFile(t, p.root, "c 0\n")); strings.Contains(r.Stdout+r.Stderr, name) {
		t.Errorf("verify names the sound blob %s\n%s", name, r)
	}

	t.Run("show marks damaged blobs missing_blob", func(t *testing.T) {
		// store.StatusMissingBlob: "also a blob that fails its hash".
		s := ckptShow(t, p.root, "1")
		for path, want := range map[string]string{"a.txt": "missing_blob", "b.txt": "missing_blob", "d.txt": "missing_blob", "c.txt": "modified"} {
			if got := s.statuses()[path]; got != want {
				t.Errorf("show 1 --json: %s is %q, want %q", path, got, want)
			}
		}
	})

	o := ckptOp(t, p.root, 3, "rewind", "1", "--yes")
	if !sameSet(o.failedPaths(), []string{"a.txt", "b.txt", "d.txt"}) {
		t.Errorf("rewind over damaged blobs failed %+v, want a.txt, b.txt, d.txt", o.Failed)
	}
	for _, f := range o.Failed {
		if strings.TrimSpace(f.Reason) == "" {
			t.Errorf("failed %s without a reason", f.Path)
		}
	}
	for path, want := range map[string]string{"a.txt": "a 1\n", "b.txt": "b 1\n", "d.txt": "d 1\n", "c.txt": "c 0\n"} {
		if got := readText(t, p.root, path); got != want {
			t.Errorf("after the rewind %s holds %q, want %q (bad bytes must never be written)", path, got, want)
		}
	}
}
