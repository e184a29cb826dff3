package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// BenchmarkTurnPathsLookup is what a capture or a seal reads of its turn
// (the turn record, the path index, the records past it) to answer
// whether a path is captured and what its newest seal is, in a turn of
// 10 and of 5,000 edit calls (a pre and a post record each). The disk's
// barriers are left out: this is the part that could grow with the turn.
func BenchmarkTurnPathsLookup(b *testing.B) {
	for _, calls := range []int{10, 5000} {
		b.Run(fmt.Sprintf("call%d", calls), func(b *testing.B) {
			root := b.TempDir()
			wr(b, root, "a.txt", "a\n")
			s, err := Open(root, Options{Create: true})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Capture("1", TurnMeta{}, []string{"a.txt"}); err != nil {
				b.Fatal(err)
			}
			var buf []byte
			for i := range calls {
				p := fmt.Sprintf("src/d%02d/f%05d.go", i%50, i)
				buf = record.Append(buf, &record.Line{R: "pre", File: record.File{Path: p, Img: &Image{Kind: ImageAbsent}}, At: 1, N: 1})
				buf = record.Append(buf, &record.Line{R: "post", File: record.File{Path: p, Img: &Image{Kind: ImageAbsent}}, At: 1, N: 1})
			}
			f, err := os.OpenFile(filepath.Join(root, storeDir, "turns/1.log"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				b.Fatal(err)
			}
			f.Write(buf)
			f.Close()
			// The next calls index what was appended.
			for range 2 {
				if _, err := s.Capture("1", TurnMeta{}, []string{"a.txt"}); err != nil {
					b.Fatal(err)
				}
				wr(b, root, "a.txt", "edited\n")
				if err := s.Seal("1", []string{"a.txt"}); err != nil {
					b.Fatal(err)
				}
			}
			p := fmt.Sprintf("src/d%02d/f%05d.go", (calls/2)%50, calls/2)
			b.ResetTimer()
			for b.Loop() {
				tp, err := s.openTurnPaths("1", false)
				if err != nil {
					b.Fatal(err)
				}
				if !tp.has(p) || tp.has("not/there.go") {
					b.Fatal("wrong answer")
				}
				if _, ok := tp.lastPost("a.txt"); !ok {
					b.Fatal("no seal")
				}
				tp.close()
			}
		})
	}
}
