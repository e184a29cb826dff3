package pack

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
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

// countingReader counts the bytes read through it.
type countingReader struct {
	r *bytes.Reader
	n int64
}

func (c *countingReader) ReadAt(b []byte, off int64) (int, error) {
	c.n += int64(len(b))
	return c.r.ReadAt(b, off)
}

// TestMidxLazy: an index opened by its head finds what the whole one
// finds, each of its first lookups reading the head and one bucket of
// entries (not the 1.2 MB of 20,000 blobs), the later ones from the file
// read whole once.
func TestMidxLazy(t *testing.T) {
	var ps []Named
	for k := range 3 {
		p := Named{Name: fmt.Sprintf("%024d.pack", k)}
		for i := range 20000 / 3 {
			p.Ents = append(p.Ents, Entry{Sum: blob.Of([]byte(fmt.Sprint(k, i))), Off: int64(12 + i), ZLen: int64(i), Size: int64(k*100 + i)})
		}
		ps = append(ps, p)
	}
	b := EncodeMidx(ps)
	whole, err := DecodeMidx(b)
	if err != nil {
		t.Fatal(err)
	}
	r := &countingReader{r: bytes.NewReader(b)}
	m, err := OpenMidx(r, int64(len(b)))
	if err != nil || !slices.Equal(m.Packs, whole.Packs) {
		t.Fatalf("open: %v, %v", m, err)
	}
	finds := 0
	find := func(sum blob.ID) (int, Entry, bool) {
		// The head's first read, and a bucket of about 80 entries a lookup.
		if finds < lazyFinds && r.n > 4096+int64(finds)*8<<10 {
			t.Fatalf("after %d lookups %d bytes were read of %d", finds, r.n, len(b))
		}
		finds++
		return m.Find(sum)
	}
	for n, e := range ps[1].Ents[:2*lazyFinds] {
		i, got, ok := find(e.Sum)
		if !ok || i != 1 || got != e {
			t.Fatalf("lookup %d of %s: %v %v %v", n, e.Sum.Short(), i, got, ok)
		}
		if _, _, ok := find(blob.Of([]byte(fmt.Sprint("absent", n)))); ok {
			t.Fatal("found a blob no pack holds")
		}
	}
	if r.n < int64(len(b)) || m.Bad() != nil {
		t.Fatalf("after %d lookups %d bytes were read of %d (%v)", finds, r.n, len(b), m.Bad())
	}
}

// A lazy index's damage is found where a lookup reads it: an entry naming
// no pack, out of order or in another's bucket makes it Bad and find
// nothing; a file whose length is not the one its head counts, or of a
// newer version, does not open.
func TestMidxLazyDamaged(t *testing.T) {
	var p Named
	p.Name = "p.pack"
	for i := range 2000 {
		p.Ents = append(p.Ents, Entry{Sum: blob.Of([]byte(fmt.Sprint(i))), Off: 12, ZLen: 1, Size: 1})
	}
	good := EncodeMidx([]Named{p})
	whole, _ := DecodeMidx(good)
	head := len(good) - 4 - whole.n*midxEnt
	e := p.Ents[7]
	i := sort.Search(whole.n, func(i int) bool { return bytes.Compare(whole.ents[i*midxEnt:i*midxEnt+32], e.Sum[:]) >= 0 })
	if i+1 >= whole.n || whole.ents[(i+1)*midxEnt] != e.Sum[0] {
		t.Fatal("the entry after e's is in another bucket: pick another e")
	}
	at := func(b []byte, j int) []byte { return b[head+j*midxEnt : head+(j+1)*midxEnt] }
	for _, c := range []struct {
		what   string
		damage func(b []byte)
	}{
		{"naming no pack", func(b []byte) { at(b, i+1)[35] ^= 1 }},
		{"in another bucket", func(b []byte) { at(b, i)[0] ^= 1 }},
		{"out of order", func(b []byte) {
			x := bytes.Clone(at(b, i))
			copy(at(b, i), at(b, i+1))
			copy(at(b, i+1), x)
		}},
	} {
		b := bytes.Clone(good)
		c.damage(b)
		m, err := OpenMidx(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: the head does not open: %v", c.what, err)
		}
		if _, _, ok := m.Find(e.Sum); ok || !errors.Is(m.Bad(), format.ErrCorrupt) {
			t.Fatalf("an entry %s: found %v, bad %v", c.what, ok, m.Bad())
		}
	}
	if _, err := OpenMidx(bytes.NewReader(good[:len(good)-1]), int64(len(good)-1)); !errors.Is(err, format.ErrCorrupt) {
		t.Fatalf("a file cut short: %v", err)
	}
	b := bytes.Clone(good)
	b[len(midxMagic)] = MidxVersion + 1
	if _, err := OpenMidx(bytes.NewReader(b), int64(len(b))); !errors.Is(err, format.ErrNewerFormat) {
		t.Fatalf("a newer version: %v", err)
	}
}
