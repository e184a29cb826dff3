package store

import (
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/pack"
)

// BenchmarkMaintenanceDueBigIndex is what a turn's end pays to ask
// whether a background pass is due, in a store whose lookup index
// (packs.idx) covers the 300,000 blobs of a big tree's first copy, as a
// hook process asks it: with nothing of the packs read yet.
func BenchmarkMaintenanceDueBigIndex(b *testing.B) {
	root := b.TempDir()
	s, err := Open(root, Options{Create: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if err := s.ensureDirs(); err != nil {
		b.Fatal(err)
	}
	ents := make([]pack.Entry, 300_000)
	for i := range ents {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(i))
		ents[i] = pack.Entry{Sum: sha256.Sum256(n[:]), Off: int64(16 + 100*i), ZLen: 100, Size: 100}
	}
	dir := filepath.Join(root, storeDir)
	if err := os.WriteFile(filepath.Join(dir, midxFile), pack.EncodeMidx([]pack.Named{{Name: "first.pack", Ents: ents}}), 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "packs"), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "packs", "first.pack"), nil, 0o600); err != nil {
		b.Fatal(err)
	}
	if packs, uncovered := s.packs.counts(s); packs != 1 || uncovered != 0 {
		b.Fatalf("%d packs, %d uncovered", packs, uncovered)
	}
	b.ResetTimer()
	for b.Loop() {
		s.RepackDue()
	}
}
