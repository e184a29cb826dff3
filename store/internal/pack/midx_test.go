package pack

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
	"github.com/ckpt-dev/ckpt/store/internal/format"
)

func TestMidxRoundTrip(t *testing.T) {
	var ps []Named
	for k := range 3 {
		p := Named{Name: fmt.Sprintf("%024d.pack", k)}
		for i := range 50 {
			p.Ents = append(p.Ents, Entry{Sum: blob.Of([]byte(fmt.Sprint(k, i))), Off: int64(12 + i), ZLen: int64(i), Size: int64(k*100 + i)})
		}
		ps = append(ps, p)
	}
	b := EncodeMidx(ps)
	m, err := DecodeMidx(b)
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range ps {
		for _, e := range p.Ents {
			i, got, ok := m.Find(e.Sum)
			if !ok || i != k || got != e {
				t.Fatalf("find %s: %v %v %v", e.Sum.Short(), i, got, ok)
			}
		}
	}
	if _, _, ok := m.Find(blob.Of([]byte("absent"))); ok {
		t.Error("found a blob no pack holds")
	}
	b[len(b)/2] ^= 1
	if _, err := DecodeMidx(b); err == nil {
		t.Error("a damaged index decoded")
	}
}

// TestMidxNamesFromHead: the names read from the head alone are those
// DecodeMidx finds, however many (past the first read's 4 KiB), and
// the entries after them are never looked at; a head cut short or of a
// newer version is refused.
func TestMidxNamesFromHead(t *testing.T) {
	for _, k := range []int{0, 1, 300} {
		var ps []Named
		for i := range k {
			ps = append(ps, Named{Name: fmt.Sprintf("%024d.pack", i), Ents: []Entry{{Sum: blob.Of([]byte(fmt.Sprint(i))), Off: 12, ZLen: 1, Size: 1}}})
		}
		b := EncodeMidx(ps)
		m, err := DecodeMidx(b)
		if err != nil {
			t.Fatal(err)
		}
		b[len(b)-10] ^= 1 // an entry's byte: DecodeMidx would refuse it now
		names, err := MidxNames(bytes.NewReader(b), int64(len(b)))
		if err != nil || !slices.Equal(names, m.Packs) {
			t.Fatalf("%d packs: %d names, %v", k, len(names), err)
		}
		if k == 300 {
			head := b[:4000] // ends inside the names
			if _, err := MidxNames(bytes.NewReader(head), int64(len(head))); !errors.Is(err, format.ErrCorrupt) {
				t.Fatalf("a head cut short: %v", err)
			}
		}
	}
	b := EncodeMidx(nil)
	b[len(midxMagic)] = MidxVersion + 1
	if _, err := MidxNames(bytes.NewReader(b), int64(len(b))); !errors.Is(err, format.ErrNewerFormat) {
		t.Fatalf("a newer version: %v", err)
	}
}
