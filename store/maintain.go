package store

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// maintainLock is held by the one background pass that runs or waits
// to run; a hook that finds it held starts no other.
const maintainLock = "maintain.lock"

// MaintainQuiet is how long the store must have been left alone before
// a pass started at a turn's start or after `ckpt exec` runs: an agent
// with no end-of-turn event is then between turns, and no hook waits on
// the pass's locks.
var MaintainQuiet = 20 * time.Second

// maintainWait bounds how long such a pass waits for quiet before it
// gives up (the next turn starts another).
const maintainWait = time.Hour

// BackgroundWanted reports whether a hook (or `ckpt exec`) should start
// the background pass: one may be due (MaintenanceDue), none is running
// or waiting, and the project's ConfigFile does not turn automatic
// retention off. It reads a few names and stats, and the config file
// only when a pass is due, so a hook can ask it at every turn.
func (s *Store) BackgroundWanted() bool {
	if !s.MaintenanceDue() || s.autoOff() {
		return false
	}
	l, err := s.flock(maintainLock, unix.LOCK_EX|unix.LOCK_NB)
	if err != nil {
		return false // held: a pass runs or waits
	}
	l.unlock()
	return true
}

// autoOff: the project's ConfigFile says "auto": false. The hook binary
// does not link the config's parser (JSON with comments, which `ckpt
// maintain` reads); this strips comments and trailing commas, as that
// parser does, and reads that one key. A file it cannot read is not
// taken to say off: the pass that starts reads it and says why.
func (s *Store) autoOff() bool {
	name := filepath.FromSlash(ConfigFile)
	if fi, err := s.root.Lstat(name); err != nil || !fi.Mode().IsRegular() {
		return false // none, or not a file `ckpt maintain` would read
	}
	f, err := s.root.OpenFile(name, os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return false
	}
	var cfg struct {
		Retention struct {
			Auto *bool `json:"auto"`
		} `json:"retention"`
	}
	if json.Unmarshal(StandardJSON(data), &cfg) != nil {
		return false
	}
	return cfg.Retention.Auto != nil && !*cfg.Retention.Auto
}

// StandardJSON turns JSON with comments (// and /* */) and trailing
// commas into standard JSON: comments become spaces, and a comma with
// nothing but space before the next '}' or ']' goes.
func StandardJSON(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '"':
			j := stringEnd(data, i)
			out = append(out, data[i:j]...)
			i = j - 1
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				out = append(out, ' ')
				i++
			}
			i--
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			n := len(data) - i
			if end >= 0 {
				n = end + 4
			}
			out = append(out, bytes.Repeat([]byte{' '}, n)...)
			i += n - 1
		default:
			out = append(out, c)
		}
	}
	// Trailing commas, now that no comment hides one.
	res := out[:0:0]
	for i := 0; i < len(out); i++ {
		if out[i] == '"' {
			j := stringEnd(out, i)
			res = append(res, out[i:j]...)
			i = j - 1
			continue
		}
		if out[i] == ',' {
			j := i + 1
			for j < len(out) && (out[j] == ' ' || out[j] == '\t' || out[j] == '\n' || out[j] == '\r') {
				j++
			}
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				res = append(res, ' ')
				continue
			}
		}
		res = append(res, out[i])
	}
	return res
}

// stringEnd is the index just past the JSON string that opens at b[i]
// (a quote), escapes passed over; len(b) when it is not closed.
func stringEnd(b []byte, i int) int {
	j := i + 1
	for j < len(b) && b[j] != '"' {
		if b[j] == '\\' {
			j++
		}
		j++
	}
	return min(j+1, len(b))
}

// LastWrite is when the store was last written to by a turn or a sweep:
// the newest of the clock (every record takes a number from it), the
// baseline and ops.log.
func (s *Store) LastWrite() time.Time {
	var t time.Time
	for _, n := range []string{clockFile, "baseline", "ops.log"} {
		if fi, err := s.dir.Lstat(n); err == nil && fi.ModTime().After(t) {
			t = fi.ModTime()
		}
	}
	return t
}

// MaintainWhenQuiet is Maintain for a pass started at a turn's start or
// after `ckpt exec`: it holds maintain.lock (returning nil at once when
// another pass holds it), waits until the store has been left alone for
// quiet (giving up, nil, after maintainWait), then runs Maintain.
func (s *Store) MaintainWhenQuiet(b Budget, quiet time.Duration) (*MaintainResult, error) {
	l, err := s.flock(maintainLock, unix.LOCK_EX|unix.LOCK_NB)
	if err != nil {
		if errorsIsWouldBlock(err) {
			return nil, nil
		}
		return nil, err
	}
	defer l.unlock()
	for start := time.Now(); ; {
		idle := time.Since(s.LastWrite())
		if idle >= quiet {
			break
		}
		if time.Since(start) > maintainWait {
			return nil, nil
		}
		time.Sleep(min(quiet-idle+10*time.Millisecond, time.Minute))
	}
	return s.Maintain(b, false)
}
