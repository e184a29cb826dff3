// Package watch tells its caller when files under some folders may have
// changed. It is linked by the ckpt binary (the UI), never by ckpt-hook,
// which an agent starts on every tool call.
package watch

import (
	"context"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Targets are what Notify watches.
type Targets struct {
	// Trees are watched with every folder under them.
	Trees []string
	// Dirs are watched for their own entries only.
	Dirs []string
	// Quiet reports a path under Trees whose changes say nothing (nil: none).
	Quiet func(path string) bool
	// Opaque reports a folder under Trees that polling does not descend
	// into, its own modification time standing for what it holds (nil:
	// none): a folder only ever added to, such as content-addressed blobs.
	Opaque func(name string) bool
}

// Notify sends on the returned channel whenever something under one of
// t.Trees (with its subfolders) or directly in one of t.Dirs may have
// changed, until ctx ends; then it closes the channel. The channel holds
// one signal: signals sent while the reader is busy merge into one.
//
// It watches with fsnotify, adding subfolders as they appear; a full event
// queue (events lost) signals too. Where fsnotify fails it polls a
// fingerprint (names, sizes, modification times) every `every` instead;
// where it works nothing runs until an event arrives, so an idle watch
// costs nothing. At least one tree or dir must exist.
func Notify(ctx context.Context, every time.Duration, t Targets) (<-chan struct{}, error) {
	trees, dirs := t.Trees, t.Dirs
	quiet := t.Quiet
	if quiet == nil {
		quiet = func(string) bool { return false }
	}
	opaque := t.Opaque
	if opaque == nil {
		opaque = func(string) bool { return false }
	}
	if every <= 0 {
		every = time.Second
	}
	var have int
	for _, d := range append(append([]string(nil), trees...), dirs...) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			have++
		}
	}
	if have == 0 {
		return nil, fmt.Errorf("watch: none of %q is a folder", append(append([]string(nil), trees...), dirs...))
	}

	w, err := fsnotify.NewWatcher()
	if err == nil {
		for _, t := range trees {
			if err = addTree(w, t); err != nil {
				break
			}
		}
		for _, d := range dirs {
			if err != nil {
				break
			}
			if _, serr := os.Stat(d); serr == nil {
				err = w.Add(d)
			}
		}
		if err != nil {
			w.Close()
			w = nil
		}
	} else {
		w = nil
	}

	out := make(chan struct{}, 1)
	signal := func() {
		select {
		case out <- struct{}{}:
		default:
		}
	}
	poll := every
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w != nil {
		events, errs = w.Events, w.Errors
	}
	go func() {
		defer close(out)
		if w != nil {
			defer w.Close()
		}
		// Polling is the fallback where fsnotify cannot watch: where it
		// can, nothing runs until an event (or a lost one) arrives.
		var tickC <-chan time.Time
		var last uint64
		if w == nil {
			tick := time.NewTicker(poll)
			defer tick.Stop()
			tickC = tick.C
			last = fingerprint(trees, dirs, quiet, opaque)
		}
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-events:
				if !ok {
					events = nil
					continue
				}
				if inTree(ev.Name, trees) && quiet(ev.Name) {
					continue
				}
				if ev.Has(fsnotify.Create) && inTree(ev.Name, trees) {
					if fi, err := os.Lstat(ev.Name); err == nil && fi.IsDir() {
						_ = addTree(w, ev.Name)
					}
				}
				signal()
			case _, ok := <-errs:
				if !ok {
					errs = nil
					continue
				}
				signal() // events were lost: something may have changed
			case <-tickC:
				if fp := fingerprint(trees, dirs, quiet, opaque); fp != last {
					last = fp
					signal()
				}
			}
		}
	}()
	return out, nil
}

// addTree watches dir and every folder under it.
func addTree(w *fsnotify.Watcher, dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // a folder that vanished or cannot be read
		}
		if d.IsDir() {
			return w.Add(p)
		}
		return nil
	})
}

// inTree reports whether p is one of trees or under one.
func inTree(p string, trees []string) bool {
	for _, t := range trees {
		if rel, err := filepath.Rel(t, p); err == nil && rel != ".." && !filepath.IsAbs(rel) &&
			(len(rel) < 3 || rel[:3] != ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// fingerprint hashes the names, sizes and modification times of what the
// watch covers.
func fingerprint(trees, dirs []string, quiet, opaque func(string) bool) uint64 {
	h := fnv.New64a()
	add := func(p string, fi fs.FileInfo) {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%o\n", p, fi.Size(), fi.ModTime().UnixNano(), fi.Mode())
	}
	for _, t := range trees {
		_ = filepath.WalkDir(t, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if quiet(p) {
				return nil
			}
			if d.IsDir() && opaque(d.Name()) && p != t {
				if fi, err := d.Info(); err == nil {
					add(p, fi) // its own time still moves when a blob is added
				}
				return filepath.SkipDir
			}
			if fi, err := d.Info(); err == nil {
				add(p, fi)
			}
			return nil
		})
	}
	for _, d := range dirs {
		ents, err := os.ReadDir(d)
		if err != nil {
			fmt.Fprintf(h, "%s\x00gone\n", d)
			continue
		}
		for _, e := range ents {
			if fi, err := e.Info(); err == nil {
				add(filepath.Join(d, e.Name()), fi)
			}
		}
	}
	return h.Sum64()
}
