package store

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A damaged loose blob's finding names the file once (its File) and its
// reason says what is wrong, not the blob's path again.
func TestVerifyLooseBlobReason(t *testing.T) {
	root := tempRoot(t)
	wr(t, root, "a.txt", "a\n")
	s := openStore(t, root)
	if _, err := s.Capture("1", TurnMeta{}, []string{filepath.Join(root, "a.txt")}); err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob(filepath.Join(root, storeDir, "blobs", "*"))
	if err != nil || len(names) != 1 {
		t.Fatalf("loose blobs %v, %v; want one", names, err)
	}
	if err := os.WriteFile(names[0], []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	found, err := s.Verify()
	if err != nil || len(found) != 1 || found[0].Kind != FindDamagedBlob {
		t.Fatalf("verify: %+v, %v; want one damaged blob", found, err)
	}
	f := found[0]
	base := filepath.Base(names[0])
	if f.File != "blobs/"+base {
		t.Errorf("finding names %q, want blobs/%s", f.File, base)
	}
	if strings.Contains(f.Detail, base[:12]) || strings.Contains(f.Detail, root) || strings.Contains(f.Detail, "store: ") {
		t.Errorf("the reason %q names the blob or its path again", f.Detail)
	}
	if !strings.Contains(f.Detail, "does not decompress") {
		t.Errorf("the reason %q does not say the blob does not decompress", f.Detail)
	}
}

// A seed index whose entry names the blob of all zeros is reported as
// that, not as a name of the wrong length, by verify, status and a rewind.
func TestVerifySeedZeroBlob(t *testing.T) {
	root := tempRoot(t)
	wr(t, root, "a", "a")
	if err := os.MkdirAll(filepath.Join(root, storeDir), 0o700); err != nil {
		t.Fatal(err)
	}
	zeros := strings.Repeat("0", 64)
	idx := `[{"turn": 1, "at": 1, "files": [{"path": "a", "pre": {"kind": "content", "sha256": "` + zeros + `", "bytes": 1}}]}]`
	if err := os.WriteFile(filepath.Join(root, storeDir, "index.json"), []byte(idx), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := "blob name " + zeros + " is all zeros, the name of no blob"
	found, err := s.Verify()
	if err != nil || len(found) != 1 || found[0].Kind != FindSeedBlobName || found[0].Detail != want || found[0].Path != zeros {
		t.Fatalf("verify: %+v, %v; want the seed's blob name found as all zeros", found, err)
	}
	p, err := s.PlanRewind("1")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 1 || p.Steps[0].Reason != "not restored: "+want {
		t.Errorf("rewind's plan: %+v, want %q", p.Steps, "not restored: "+want)
	}
}
