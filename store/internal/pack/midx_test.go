package pack

import (
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
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
