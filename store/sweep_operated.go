package store

import (
	"io"
	"slices"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// What a rewind, undo, redo or revert wrote while a shell command ran (or
// between a turn's commands) is the operation's, not the command's: a
// hook's sweep gives those paths to the baseline, as ckpt watch's does
// (recordWatched). A path the command changed again after the operation
// is the command's, from what the operation left.

// operatedOut takes out of a hook's sweep's recs (ws nil) the paths the
// operations logged in ops.log since the baseline old left as they are
// now, and gives the others they wrote the operation's bytes as their
// pre-image.
func (s *Store) operatedOut(recs []shellRec, res *SweepResult, old *baseline, ws *watchSweep) []shellRec {
	if !res.Operated || ws != nil || old == nil {
		return recs
	}
	left, err := s.operationsLeft(old.ops)
	if err != nil {
		s.LogError("sweep: %v", err)
		return recs
	}
	if len(left) == 0 {
		return recs
	}
	kept := recs[:0]
	now := time.Now().UnixNano()
	for _, r := range recs {
		if img, ok := left[r.path]; ok {
			if !r.noPost && sameImage(r.post, img) {
				continue
			}
			// The operation wrote it after the baseline was taken: the
			// image is as of then, which now follows, never precedes.
			r.pre, r.dirs, r.seen = img, nil, now
		}
		kept = append(kept, r)
	}
	return kept
}

// operationsLeft reads the operations ops.log holds past offset from and
// says, for each path one of them wrote, what the newest left there.
func (s *Store) operationsLeft(from int64) (map[string]Image, error) {
	f, err := s.dir.Open("ops.log")
	if err != nil {
		return nil, errf("read %s: %w", s.path("ops.log"), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() <= from {
		return nil, err
	}
	data, err := io.ReadAll(io.NewSectionReader(f, from, fi.Size()-from))
	if err != nil {
		return nil, errf("read %s: %w", s.path("ops.log"), err)
	}
	var ids []string
	failed := map[string]map[string]bool{}
	for _, r := range record.Decode(data).Recs {
		switch r.R {
		case "op":
			ids = append(ids, r.ID)
		case "done":
			if r.Abandoned || r.None {
				continue // it changed nothing it meant to: not done
			}
			fs := map[string]bool{}
			for _, p := range r.Failed {
				fs[p] = true
			}
			for _, fl := range r.Fails {
				fs[fl.Path] = true
			}
			failed[r.ID] = fs
		}
	}
	left := map[string]Image{}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if failed[id] == nil {
			// Not done (still running, killed, abandoned, or every
			// step failed): which of its steps ran is not known here,
			// so what the command's sweep saw stays the command's.
			continue
		}
		steps, err := s.steps(id)
		if err != nil {
			return nil, err
		}
		for _, st := range steps {
			if st.R != "step" || st.Want == nil || failed[id][st.Path] || (st.Do != ActRestore && st.Do != ActDelete) {
				continue
			}
			left[st.Path] = *st.Want
		}
	}
	return left, nil
}

// sameImage reports whether two images hold the same thing, mode
// included.
func sameImage(a, b Image) bool {
	return sameBytes(a, b) && (a.Kind != ImageContent || a.Mode&0o7777 == b.Mode&0o7777)
}

// opLeftSince says what the newest operation logged after seq (a record's
// order) that wrote rel left there, if one did: a seal in a continuation
// (T.2) takes it as the pre-image of a path captured before the rewind,
// which may have put back an older turn's bytes than that capture's.
func (s *Store) opLeftSince(seq int64, rel string) (Image, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ops, err := s.readOps()
	if err != nil {
		return Image{}, false
	}
	var left Image
	found := false
	for _, o := range ops {
		if o.seq <= seq || !o.done || o.abandoned || o.none || slices.ContainsFunc(o.fails, func(f Failure) bool { return f.Path == rel }) {
			continue
		}
		steps, err := s.steps(o.id)
		if err != nil {
			return Image{}, false
		}
		for _, st := range steps {
			if st.R == "step" && st.Path == rel && st.Want != nil && (st.Do == ActRestore || st.Do == ActDelete) {
				left, found = *st.Want, true
			}
		}
	}
	return left, found
}
