package store

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

func (s *Store) loadSeed() {
	fi, err := s.dir.Lstat("index.json")
	if err != nil {
		s.cache.seed, s.cache.seedErr = nil, nil
		return
	}
	if fi.Size() == s.cache.seedSize && fi.ModTime().UnixNano() == s.cache.seedMod {
		return
	}
	s.cache.seedSize, s.cache.seedMod = fi.Size(), fi.ModTime().UnixNano()
	s.cache.seed, s.cache.seedErr = s.parseSeed()
}

func (s *Store) parseSeed() ([]*turn, error) {
	data, err := s.dir.ReadFile("index.json")
	if err != nil {
		return nil, errf("read %s: %w", s.path("index.json"), err)
	}
	entries, err := record.DecodeSeed(data)
	if err != nil {
		return nil, errf("%s is not a JSON array of turns: %v: %w", s.path("index.json"), err, ErrCorrupt)
	}
	var turns []*turn
	// Symlinks are resolved once per folder, not once per entry: a big
	// index names the same few folders over and over.
	memo := map[string]string{}
	type relOf struct {
		rel string
		err error
	}
	rels := map[string]relOf{}
	for i, e := range entries {
		id := e.ID()
		if id == "" {
			id = strconv.Itoa(i + 1)
		}
		t := newTurn(id)
		t.label, t.at, t.seq, t.seed = e.Label, e.At, e.At, true
		// The array is oldest first, whatever the "at" say (a clock
		// stepped back, or none given): each turn comes after the last.
		if len(turns) > 0 && t.seq <= turns[len(turns)-1].seq {
			t.seq = turns[len(turns)-1].seq + 1
		}
		for _, f := range e.Files {
			raw, _ := f.Path.(string)
			tf := &tfile{path: raw}
			r, ok := rels[raw]
			if !ok {
				r.rel, r.err = s.rel(raw, memo)
				rels[raw] = r
			}
			rel, err := r.rel, r.err
			switch {
			case raw == "":
				tf.path, tf.refused = fmt.Sprint(f.Path), "path is not a string"
			case err != nil:
				tf.refused = "outside the root: refused"
				if errors.Is(err, ErrOutsideRoot) && strings.Contains(err.Error(), "inside the checkpoint store") {
					tf.refused = "inside the checkpoint store: refused"
				}
			default:
				tf.path = rel
			}
			switch ImageKind(f.Pre.Kind) {
			case ImageContent:
				sum, err := ParseBlobID(f.Pre.SHA256)
				if err != nil || sum.IsZero() {
					tf.badBlob = f.Pre.SHA256
				}
				tf.pre = Image{Kind: ImageContent, SHA256: sum, Size: f.Pre.Bytes, Kept: true}
			case ImageAbsent:
				tf.pre = Image{Kind: ImageAbsent}
			case ImageSkipped:
				tf.pre = Image{Kind: ImageSkipped, Reason: f.Pre.Reason, Size: f.Pre.Bytes}
			default:
				tf.pre = Image{Kind: ImageKind(f.Pre.Kind)}
				if tf.refused == "" {
					tf.refused = fmt.Sprintf("unknown pre kind %q", f.Pre.Kind)
				}
			}
			key := tf.path
			if tf.refused != "" {
				key = "\x00" + strconv.Itoa(len(t.fl))
			}
			if _, dup := t.byPath[key]; dup {
				continue
			}
			t.byPath[key] = tf
			t.fl = append(t.fl, tf)
		}
		turns = append(turns, t)
	}
	return turns, nil
}

// badBlobWhy is what is wrong with name, a seed entry's blob name that
// names no blob.
func badBlobWhy(name string) string {
	if len(name) == 64 && strings.Trim(name, "0") == "" {
		return "blob name " + name + " is all zeros, the name of no blob"
	}
	return fmt.Sprintf("blob name %q is not 64 hex digits", name)
}
