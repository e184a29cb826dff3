package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// errLogMax bounds the error log; past it the older half is dropped.
const errLogMax = 256 << 10

// LogError appends a line to the store's bounded error log. Hooks, which
// must stay silent, report through it; `ckpt log` and the UI show it.
func (s *Store) LogError(format string, args ...any) {
	msg := escapeLogLine(strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " "))
	line := time.Now().UTC().Format(time.RFC3339) + " " + msg + "\n"
	f, err := s.dir.OpenFile("errors.log", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	f.Write([]byte(line))
	fi, err := f.Stat()
	f.Close()
	if err == nil && fi.Size() > errLogMax {
		if l, ok, _ := s.tryLock(); ok {
			data, err := s.dir.ReadFile("errors.log")
			if err == nil && len(data) > errLogMax/2 {
				data = data[len(data)-errLogMax/2:]
				if i := strings.IndexByte(string(data), '\n'); i >= 0 {
					data = data[i+1:]
				}
				storefs.WriteAtomic(s.dir, "errors.log", data, 0o600, false)
			}
			l.unlock()
		}
	}
}

// escapeLogLine writes control characters (NUL, escape sequences, C1)
// and bytes that are not UTF-8 as escapes, so a hostile
// path or label can neither split a line of the error log nor paint the
// terminal that shows it.
func escapeLogLine(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Errors returns the error log's lines, oldest first.
func (s *Store) Errors() ([]string, error) {
	f, err := s.dir.Open("errors.log")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, errf("read %s: %w", s.path("errors.log"), err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, errf("read %s: %w", s.path("errors.log"), err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	return lines, nil
}

// ClearErrors empties the error log (`ckpt log --errors --clear`; nothing
// else clears it).
func (s *Store) ClearErrors() error {
	l, err := s.lock()
	if err != nil {
		return err
	}
	defer l.unlock()
	if err := s.dir.Remove("errors.log"); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errf("clear %s: %w", s.path("errors.log"), err)
	}
	return nil
}

// logOnce logs msg unless the error log holds it already.
func (s *Store) logOnce(msg string) {
	if data, err := s.dir.ReadFile("errors.log"); err == nil && strings.Contains(string(data), escapeLogLine(msg)) {
		return
	}
	s.LogError("%s", msg)
}
