package store

import (
	"errors"
	"io"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ckpt-dev/ckpt/store/internal/format"
	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// loadTurns brings the cached turn files up to date. When nothing was
// written since this Store's last load, or since the summary recorded
// its generation, that is all it reads; when the clock journal names
// every turn file written since, it reads those; otherwise it lists
// turns/, takes from the summary each entry whose file's stat matches,
// and reads the rest. Caller holds s.mu.
func (s *Store) loadTurns() error {
	var known *turnsGen
	if s.cache.genOK {
		known = &s.cache.gen
	}
	gr := s.readGen(known)
	g := gr.g
	if known != nil {
		if gr.ok && g == *known {
			return nil
		}
		if names, ok := gr.since(*known); ok {
			return s.loadJournaled(&gr, names)
		}
	}
	s.cache.genOK = false
	var text string
	var frames []sumFrame
	haveSum := false
	if !s.cache.sum.read {
		text, frames, haveSum = s.openSummary()
		if last := s.cache.sum.lastGen; haveSum && last != nil {
			if names, ok := gr.since(*last); ok {
				if live, _ := latestFrames(frames, nil); len(live) >= summaryMin && s.useSummary(text, live) {
					return s.loadJournaled(&gr, names)
				}
				clear(s.cache.files) // a damaged entry: every file is listed and checked
			}
		}
	}
	s.cache.listed++
	list, err := storefs.Names(s.dir, "turns")
	if err != nil {
		return errf("read %s: %w", s.path("turns"), err)
	}
	seen := make(map[string]bool, len(list))
	files := make([]string, 0, len(list))
	for _, n := range list {
		name := "turns/" + n
		if !strings.HasSuffix(name, ".log") {
			continue
		}
		seen[name] = true
		files = append(files, name)
	}
	if haveSum {
		if len(files) < summaryMin {
			// A store pruned below the size worth a summary: the one
			// left from before only takes room.
			_ = s.dir.Remove(summaryFile) // a cache: left, it is only never read
		} else {
			live, gone := latestFrames(frames, seen)
			s.useSummary(text, live)
			s.cache.sum.gone = append(s.cache.sum.gone, gone...)
		}
	}
	if err := s.refreshTurnFiles(files); err != nil {
		return err
	}
	torn := false
	for name, c := range s.cache.files {
		if !seen[name] {
			s.forgetTurnFile(name)
			continue
		}
		torn = torn || c.torn
	}
	s.cache.gen, s.cache.genOK = g, gr.standing() && !torn
	s.saveSummary(g, gr.ok && gr.settled)
	return nil
}

// loadJournaled brings the cache, which stood for an earlier generation,
// up to gr's by reading only the turn files the journal named (names, in
// turns/, repeats allowed): one gone is dropped, any other refreshed.
// Caller holds s.mu.
func (s *Store) loadJournaled(gr *genRead, names []string) error {
	var files []string
	torn := false
	if len(names) > 0 {
		seen := make(map[string]bool, len(names))
		for _, n := range names {
			if name := "turns/" + n; !seen[name] && strings.HasSuffix(name, ".log") {
				seen[name] = true
				files = append(files, name)
			}
		}
		kept := files[:0]
		for _, name := range files {
			if _, err := s.dir.Lstat(name); errors.Is(err, fs.ErrNotExist) {
				s.forgetTurnFile(name)
				continue
			}
			kept = append(kept, name)
		}
		files = kept
		if err := s.refreshTurnFiles(files); err != nil {
			return err
		}
		for _, name := range files {
			torn = torn || s.cache.files[name].torn
		}
	}
	s.cache.gen, s.cache.genOK = gr.g, gr.standing() && !torn
	s.saveSummary(gr.g, gr.ok && gr.settled)
	return nil
}

// forgetTurnFile drops a turn file that is gone from the cache, and from
// the summary at its next write.
func (s *Store) forgetTurnFile(name string) {
	if c := s.cache.files[name]; c != nil && c.summed {
		s.cache.sum.gone = append(s.cache.sum.gone, name)
	}
	delete(s.cache.files, name)
}

// refreshTurnFiles brings the cached turn files up to date, on every
// core: a stat of each tells which changed since it was parsed, and
// only those are read (a first load of a big store is mostly JSON).
func (s *Store) refreshTurnFiles(names []string) error {
	if len(names) == 0 {
		return nil
	}
	// One handle on the folder: a stat or an open of each file through
	// it costs one call, not one per path element.
	turns, err := s.dir.Sub("turns")
	if err != nil {
		return errf("read %s: %w", s.path("turns"), err)
	}
	defer func() { _ = turns.Close() }()
	cached := make([]*turnFile, len(names))
	for i, n := range names {
		cached[i] = s.cache.files[n]
	}
	out := make([]*turnFile, len(names))
	errs := make([]error, len(names))
	const chunk = 256
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 1+len(names)/chunk) {
		wg.Go(func() {
			for {
				from := int(next.Add(chunk)) - chunk
				if from >= len(names) {
					return
				}
				for i := from; i < min(from+chunk, len(names)); i++ {
					errs[i] = guarded(func() (err error) {
						out[i], err = s.refreshTurnFile(turns, names[i], cached[i])
						return err
					})
				}
			}
		})
	}
	wg.Wait()
	var first error
	for i, c := range out {
		if c != nil {
			s.cache.files[names[i]] = c
		}
		if first == nil {
			first = errs[i]
		}
	}
	return first
}

// refreshTurnFile returns the up-to-date parse of one turn file given
// its cached one (nil if none): the cached one while the file's stat is
// the one it was read at, else one with the records appended since (the
// same file, grown), else a new one. It only reads s.cache, so files can
// be refreshed in parallel.
func (s *Store) refreshTurnFile(turns *storefs.Dir, name string, c *turnFile) (*turnFile, error) {
	base := strings.TrimPrefix(name, "turns/")
	if c != nil && !c.torn {
		if st, err := turns.StatAt(base); err == nil && st == c.st {
			return c, nil
		}
	}
	f, err := turns.Open(base)
	if err != nil {
		return nil, errf("read %s: %w", s.path(name), err)
	}
	defer f.Close()
	st, err := storefs.StatOf(f)
	if err != nil {
		return nil, errf("read %s: %w", s.path(name), err)
	}
	if c != nil && st == c.st && !c.torn {
		return c, nil
	}
	from := int64(0)
	if c != nil && st.Ino == c.st.Ino && st.Size > c.size && !c.torn && !c.fromSum {
		from = c.size
		c.summed, c.sumLen = false, 0
	} else {
		c = &turnFile{t: newTurn("")}
	}
	data := make([]byte, st.Size-from)
	if _, err := f.ReadAt(data, from); err != nil && err != io.EOF {
		return nil, errf("read %s: %w", s.path(name), err)
	}
	s.cache.reads.Add(1)
	res := record.Each(data, c.t.apply)
	if err := format.CheckVersion(s.path(name), "record format", c.t.v, formatVersion); err != nil {
		return nil, err
	}
	c.size = from + res.Good
	c.torn = res.Torn
	c.bad = append(c.bad, res.Bad...)
	c.st = st
	return c, nil
}
