package store

import (
	"bytes"
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/blob"
)

// Keeping hunks. A preview shows each file's diff from the disk now to
// what the operation writes there; a hunk of it may be kept as it is now
// while the rest of the file is rewound (or reverted). The hunks are
// named by their lines on both sides of that diff, together with the
// hashes of the two versions they were read from, so a choice made
// against bytes that changed since is refused, never applied elsewhere.
// The file then gets the operation's bytes with each kept hunk's lines of
// the disk put back in place of the operation's: whole lines, line ends
// and a missing final newline as they are.

// LineSpan is Len lines from line Start (0-based) of a file.
type LineSpan struct{ Start, Len int }

// Hunk is one change of a diff from the disk now to what an operation
// writes: lines Now of the file now become lines Want.
type Hunk struct{ Now, Want LineSpan }

// HunkKeep keeps hunks of one path as they are now. Now and Want are the
// hex SHA-256 of the bytes the hunks were read from: the file now, and
// what the operation writes there without the keep.
type HunkKeep struct {
	Path      string
	Now, Want string
	Hunks     []Hunk
}

// ErrHunksChanged means hunks were chosen against bytes the file, or what
// the operation writes there, no longer holds. Nothing was planned; choose
// them again.
var ErrHunksChanged = errors.New("store: the file changed since its hunks were chosen")

// keepHunks applies the hunk keeps to p's steps: each path's want becomes
// the operation's bytes with those hunks as they are now, its bytes kept
// in p.merged until Apply stores them.
func (s *Store) keepHunks(p *Plan, keeps []HunkKeep) error {
	if len(keeps) == 0 {
		return nil
	}
	if p.merged == nil {
		p.merged = map[BlobID][]byte{}
	}
	seen := map[string]bool{}
	for _, k := range keeps {
		rel, err := s.Rel(k.Path)
		if err != nil {
			return errf("keep hunks: %w", err)
		}
		if seen[rel] || len(k.Hunks) == 0 {
			return errf("keep hunks of %s: none, or named twice", rel)
		}
		seen[rel] = true
		i := sort.Search(len(p.Steps), func(i int) bool { return p.Steps[i].Path >= rel })
		if i == len(p.Steps) || p.Steps[i].Path != rel {
			return errf("keep hunks of %s: the %s does not touch it", rel, p.Kind)
		}
		if err := s.keepStepHunks(p, &p.Steps[i], k); err != nil {
			return errf("keep hunks of %s: %w", rel, err)
		}
		k.Path = rel
		p.KeepHunks = append(p.KeepHunks, k)
	}
	sort.Slice(p.KeepHunks, func(a, b int) bool { return p.KeepHunks[a].Path < p.KeepHunks[b].Path })
	return nil
}

func (s *Store) keepStepHunks(p *Plan, st *Step, k HunkKeep) error {
	if st.Do != ActRestore || st.Want.Kind != ImageContent {
		return errf("it has no lines to keep (it is to %s)", st.Do)
	}
	img, now, err := s.readIn(s.root, st.Path, st.Path)
	if err != nil {
		return err
	}
	if img.Kind != ImageContent || blob.Of(now).String() != k.Now {
		return ErrHunksChanged
	}
	want, err := s.stepBytes(p, st.Want)
	if err != nil {
		return errf("read what the %s writes: %w", p.Kind, err)
	}
	if blob.Of(want).String() != k.Want {
		return ErrHunksChanged
	}
	out, err := spliceHunks(now, want, k.Hunks)
	if err != nil {
		return err
	}
	sum := blob.Of(out)
	p.merged[sum] = out
	st.Want = Image{Kind: ImageContent, SHA256: sum, Size: int64(len(out)), Mode: st.Want.Mode, Kept: true}
	st.KeptHunks = len(k.Hunks)
	st.Do, st.Reason = ActRestore, ""
	if bytes.Equal(out, now) && (st.Want.Mode == 0 || st.Want.Mode == img.Mode) {
		st.Do = ActKeep
	}
	return nil
}

// stepBytes reads what a step writes: a merge of this plan, or a blob.
func (s *Store) stepBytes(p *Plan, img Image) ([]byte, error) {
	if b, ok := p.merged[img.SHA256]; ok {
		return b, nil
	}
	return s.readBlobOf(img)
}

// lines splits data after each newline; a last line without one is a
// line too.
func lines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return append(out, data)
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}

// spliceHunks is want with each hunk's Want lines replaced by its Now
// lines. Each hunk must be a change of a diff of now against want: in
// order, inside both files, and with the same line (or the file's edge)
// on both sides just before and just after it.
func spliceHunks(now, want []byte, hunks []Hunk) ([]byte, error) {
	nl, wl := lines(now), lines(want)
	var out []byte
	at := 0 // in wl
	lastNow := 0
	for i, h := range hunks {
		n, w := h.Now, h.Want
		bad := func(why string) error {
			return errf("hunk %d (lines %s of the file now, %s after): %s", i+1, spanWords(n), spanWords(w), why)
		}
		switch {
		case n.Start < 0 || n.Len < 0 || w.Start < 0 || w.Len < 0 || n.Start+n.Len > len(nl) || w.Start+w.Len > len(wl):
			return nil, bad("outside the file")
		case n.Len == 0 && w.Len == 0:
			return nil, bad("no lines")
		case w.Start < at || n.Start < lastNow:
			return nil, bad("out of order, or overlapping the one before")
		case (n.Start == 0) != (w.Start == 0) || n.Start > 0 && !bytes.Equal(nl[n.Start-1], wl[w.Start-1]):
			return nil, bad("not a change of the diff: the lines before it differ")
		}
		ne, we := n.Start+n.Len, w.Start+w.Len
		if (ne == len(nl)) != (we == len(wl)) || ne < len(nl) && !bytes.Equal(nl[ne], wl[we]) {
			return nil, bad("not a change of the diff: the lines after it differ")
		}
		for _, l := range wl[at:w.Start] {
			out = append(out, l...)
		}
		for _, l := range nl[n.Start:ne] {
			out = append(out, l...)
		}
		at, lastNow = we, ne
	}
	for _, l := range wl[at:] {
		out = append(out, l...)
	}
	return out, nil
}

func spanWords(s LineSpan) string {
	if s.Len == 0 {
		return "none at " + strconv.Itoa(s.Start+1)
	}
	return strconv.Itoa(s.Start+1) + "-" + strconv.Itoa(s.Start+s.Len)
}

// hunkKey is what the plan's ID says of its hunk keeps.
func hunkKey(k HunkKeep) string {
	var b strings.Builder
	b.WriteString(k.Path + "\x00" + k.Now + "\x00" + k.Want)
	for _, h := range k.Hunks {
		b.WriteString("\x00" + strconv.Itoa(h.Now.Start) + "," + strconv.Itoa(h.Now.Len) + "," + strconv.Itoa(h.Want.Start) + "," + strconv.Itoa(h.Want.Len))
	}
	return b.String()
}
