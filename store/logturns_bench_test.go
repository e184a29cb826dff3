package store

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// manyTurns is a store of n turns of 5 sealed files each, its turn files
// written directly (the records a capture and a seal write, without their
// barriers), kept in the temporary folder across runs.
var manyTurns sync.Map

func manyTurnsStore(b *testing.B, n int) string {
	if v, ok := manyTurns.Load(n); ok {
		return v.(string)
	}
	root := filepath.Join(os.TempDir(), "ckpt-bench", "turns-"+strconv.Itoa(n))
	if _, err := os.Stat(filepath.Join(root, "built")); err != nil {
		os.RemoveAll(root)
		os.RemoveAll(root + ".tmp")
		os.MkdirAll(root+".tmp", 0o755)
		s, err := Open(root+".tmp", Options{Create: true})
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now().Add(-24 * time.Hour).UnixNano()
		for t := 1; t <= n; t++ {
			id := strconv.Itoa(t)
			var buf []byte
			at := now + int64(t)*int64(time.Millisecond)
			buf = record.Append(buf, &record.Line{R: "turn", Turn: record.Turn{V: formatVersion, ID: id, Label: "turn " + id + ": refactor the module"}, At: at, N: at})
			for j := range 5 {
				p := fmt.Sprintf("pkg%03d/file%d.go", t%100, j)
				pre := &Image{Kind: ImageContent, SHA256: blobIDOf([]byte(p + id)), Size: 100, Mode: 0o644, Kept: true}
				post := &Image{Kind: ImageContent, SHA256: blobIDOf([]byte(p + id + "post")), Size: 120, Mode: 0o644, Kept: true}
				buf = record.Append(buf, &record.Line{R: "pre", File: record.File{Path: p, Img: pre}, At: at, N: at + 1})
				buf = record.Append(buf, &record.Line{R: "post", File: record.File{Path: p, Img: post}, At: at, N: at + 2})
			}
			os.MkdirAll(filepath.Join(root+".tmp", storeDir, "turns"), 0o700)
			if err := os.WriteFile(filepath.Join(root+".tmp", storeDir, turnFileName(id)), buf, 0o600); err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
		os.WriteFile(filepath.Join(root+".tmp", "built"), nil, 0o644)
		if err := os.Rename(root+".tmp", root); err != nil {
			b.Fatal(err)
		}
	}
	manyTurns.Store(n, root)
	return root
}

// BenchmarkLogTurns is the log as `ckpt log --json` reads it (with each
// turn's files changed since the agent) and as the UI's first frame reads
// it (without), from opening the store, at 2,000 and 20,000 turns.
func BenchmarkLogTurns(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		root := manyTurnsStore(b, n)
		for _, status := range []bool{false, true} {
			b.Run(fmt.Sprintf("turns=%d/status=%v", n, status), func(b *testing.B) {
				for b.Loop() {
					s, err := Open(root, Options{})
					if err != nil {
						b.Fatal(err)
					}
					es, err := s.Log(status)
					if err != nil || len(es) != n {
						b.Fatalf("%d entries, %v", len(es), err)
					}
					s.Close()
				}
			})
		}
	}
}
