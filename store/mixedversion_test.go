package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A ckpt older than the store's format refuses to write to it, and says
// why in the error log once, however often it is asked.
func TestOlderCkptRefusesNewerStoreOnce(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644)
	if _, err := s.Capture("1", TurnMeta{}, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	dir := filepath.Join(root, storeDir)
	os.WriteFile(filepath.Join(dir, formatFile), []byte("ckpt-store/99 (from the future)\n"), 0o600)
	turn, _ := os.ReadFile(filepath.Join(dir, "turns/1.log"))
	for range 3 {
		if _, err := Open(root, Options{Create: true}); !errors.Is(err, ErrNewerFormat) {
			t.Fatalf("open: %v, want ErrNewerFormat", err)
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "errors.log"))
	if n := strings.Count(string(log), "newer ckpt"); n != 1 {
		t.Fatalf("the error log says it %d times, want once:\n%s", n, log)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "turns/1.log")); string(now) != string(turn) {
		t.Fatal("a turn file changed")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, formatFile)); !strings.HasPrefix(string(b), "ckpt-store/99") {
		t.Fatalf("FORMAT was rewritten: %q", b)
	}
}

// A store written by an older format becomes this one's once written to:
// FORMAT names this version, so an older ckpt refuses it from then on.
func TestFormatRaisedOnWrite(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	dir := filepath.Join(root, storeDir)
	os.WriteFile(filepath.Join(dir, formatFile), []byte("ckpt-store/2 (crc32c-framed JSON records, zstd blobs)\n"), 0o600)
	s, err = Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.NewTurn(TurnMeta{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, formatFile)); string(b) != FormatName+"\n" {
		t.Fatalf("FORMAT holds %q, want %q", b, FormatName)
	}
}
