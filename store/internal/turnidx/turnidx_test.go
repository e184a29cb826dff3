package turnidx

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/format"
)

// mem is an index file in memory.
type mem struct{ b []byte }

func (m *mem) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(m.b)) {
		return 0, fmt.Errorf("read past the end")
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, fmt.Errorf("short read")
	}
	return n, nil
}

func (m *mem) WriteAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > int64(len(m.b)) {
		return 0, fmt.Errorf("write past the end")
	}
	return copy(m.b[off:], p), nil
}

func parse(t *testing.T, m *mem) *Index {
	t.Helper()
	ix, err := Parse("1.idx", m, int64(len(m.b)))
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// TestIndexFindsWhatWasPut: every path's oldest pre and newest post, put
// by Build and by Update in place, until the table wants to grow; the
// header's count and covered length read back; Entries and Build again
// give the same answers from a larger table.
func TestIndexFindsWhatWasPut(t *testing.T) {
	want := map[uint64][2]int64{}
	var ents []Entry
	put := func(h uint64, off int64, post bool) {
		ents = append(ents, Entry{Hash: h, Off: off, Post: post})
		w := want[h]
		if _, ok := want[h]; !ok {
			w = [2]int64{-1, -1}
		}
		if post {
			w[1] = max(w[1], off)
		} else if w[0] < 0 || off < w[0] {
			w[0] = off
		}
		want[h] = w
	}
	for i := range 10 {
		h := Hash(fmt.Sprintf("a/%d", i))
		put(h, int64(100+i), false)
		put(h, int64(200+i), true)
	}
	m := &mem{Build(7, 8, ents, 300)}
	ix := parse(t, m)
	if ix.Dev != 7 || ix.Ino != 8 || ix.Covered != 300 || ix.slots != minSlots {
		t.Fatalf("header: %+v", ix)
	}
	check := func(ix *Index, what string) {
		t.Helper()
		for h, w := range want {
			pre, post, err := ix.Find(h)
			if err != nil || pre != w[0] || post != w[1] {
				t.Fatalf("%s: %x: %d %d %v, want %v", what, h, pre, post, err, w)
			}
		}
		if pre, post, err := ix.Find(Hash("not/there")); err != nil || pre != -1 || post != -1 {
			t.Fatalf("%s: a path never put: %d %d %v", what, pre, post, err)
		}
	}
	check(ix, "built")
	grown := false
	for i := 10; i < 200 && !grown; i++ {
		h := Hash(fmt.Sprintf("b/%d", i))
		e := []Entry{{Hash: h, Off: int64(1000 + i)}, {Hash: h, Off: int64(2000 + i), Post: true}, {Hash: Hash("a/3"), Off: int64(3000 + i), Post: true}}
		ok, err := ix.Update(m, e)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			grown = true
			held, err := ix.Entries()
			if err != nil {
				t.Fatal(err)
			}
			m = &mem{Build(7, 8, append(held, e...), 9000)}
			ix = parse(t, m)
			if ix.slots <= minSlots {
				t.Fatalf("built again at %d slots", ix.slots)
			}
		}
		for _, x := range e {
			put(x.Hash, x.Off, x.Post)
		}
		if err := ix.Cover(m, int64(4000+i)); err != nil {
			t.Fatal(err)
		}
		again := parse(t, m)
		if again.used != ix.used || again.Covered != int64(4000+i) {
			t.Fatalf("header read back: used %d covered %d, want %d %d", again.used, again.Covered, ix.used, 4000+i)
		}
		check(again, fmt.Sprintf("after update %d", i))
	}
	if !grown {
		t.Fatalf("the table never asked to grow")
	}
}

// TestIndexParseRefuses: bytes that are not a whole index of this
// version are not one; a newer version is named as such.
func TestIndexParseRefuses(t *testing.T) {
	good := Build(1, 2, []Entry{{Hash: 5, Off: 10}}, 20)
	newer := bytes.Clone(good)
	newer[8] = Version + 1
	older := bytes.Clone(good)
	older[8] = 2
	badSlots := bytes.Clone(good)
	badSlots[32] = 65
	for name, b := range map[string][]byte{
		"empty": nil, "cut": good[:len(good)-1], "longer": append(bytes.Clone(good), 0),
		"garbage": bytes.Repeat([]byte{0xa5}, len(good)), "version 2": older, "slots not a power of two": badSlots,
	} {
		if _, err := Parse("1.idx", &mem{b}, int64(len(b))); !errors.Is(err, ErrNotIndex) {
			t.Errorf("%s: %v, want ErrNotIndex", name, err)
		}
	}
	if _, err := Parse("1.idx", &mem{newer}, int64(len(newer))); !errors.Is(err, format.ErrNewerFormat) {
		t.Errorf("a newer version: %v", err)
	}
}

// TestIndexHolds: a slot holds a pre entry at or after its oldest pre
// record, and a post entry at or before its newest post record; not a
// path it lacks, nor a record newer than its newest seal.
func TestIndexHolds(t *testing.T) {
	h := Hash("a")
	ix := parse(t, &mem{Build(1, 2, []Entry{{Hash: h, Off: 100}, {Hash: h, Off: 300, Post: true}}, 400)})
	for _, c := range []struct {
		e    Entry
		want bool
	}{
		{Entry{Hash: h, Off: 100}, true},
		{Entry{Hash: h, Off: 500}, true}, // a second capture: the first wins
		{Entry{Hash: h, Off: 50}, false},
		{Entry{Hash: h, Off: 200, Post: true}, true},
		{Entry{Hash: h, Off: 300, Post: true}, true},
		{Entry{Hash: h, Off: 350, Post: true}, false},
		{Entry{Hash: Hash("b"), Off: 100}, false},
	} {
		if got := ix.Holds(c.e); got != c.want {
			t.Errorf("%+v: %v, want %v", c.e, got, c.want)
		}
	}
}
