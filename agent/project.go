package agent

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// A hook event can be several times the size of the file it concerns:
// Claude Code's PostToolUse for Write repeats the content in tool_response,
// and for Edit carries the whole original file. ckpt needs none of that, so
// the event is read as a stream and reduced, as it goes, to the fields an
// adapter may read; the bulk is scanned and dropped, never held. There is
// no cap on the event's size, so a big file's seal is never lost, and the
// rest of standard input is drained, so the agent writing it never meets a
// closed pipe.
//
// The reduced event keeps:
//   - every top-level member that is not an object, whole (ids, names,
//     cwd, the prompt);
//   - of each top-level object (tool_input, tool_response, args): the
//     members named in wantedNested, whole (paths, commands, patches,
//     errors), and any other member up to smallValue bytes — a bigger one
//     (content, old_string, originalFile, …) is left out.
//
// A top-level value that is not an object is kept whole.

// wantedNested are members of tool_input, tool_response and args that are
// kept whatever their size.
var wantedNested = map[string]bool{
	"file_path": true, "notebook_path": true, "absolute_path": true, "filePath": true,
	"command": true, "cmd": true, "patch": true, "input": true, "patchText": true,
	"error": true, "dir_path": true,
	// pi, Copilot, Cline, Cursor, VS Code, Continue name files so.
	"path": true, "files": true, "filepath": true, "commands": true,
}

// smallValue is the most bytes of any other nested member kept.
const smallValue = 4 << 10

// projectEvent reads one hook event from r, reduced as described above,
// and then drains r.
func projectEvent(r io.Reader) ([]byte, error) {
	s := &scanner{r: bufio.NewReaderSize(r, 64<<10)}
	defer func() { _, _ = io.Copy(io.Discard, s.r) }()
	c, err := s.skipWS()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if c != '{' {
		// Not an object: keep it whole, and let the adapter say so.
		out.WriteByte(c)
		if _, err := s.copyRest(c, &out, -1); err != nil {
			return nil, err
		}
		return out.Bytes(), nil
	}
	if err := s.object(&out, 1); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

type scanner struct {
	r *bufio.Reader
}

func (s *scanner) skipWS() (byte, error) {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return 0, err
		}
		if !JSONSpace(c) {
			return c, nil
		}
	}
}

func (s *scanner) syntax(what string) error {
	return fmt.Errorf("decode the event: %s", what)
}

// object reduces the members of an object whose '{' was read, at depth d
// (1: the event itself), writing the kept ones to out as an object.
func (s *scanner) object(out *bytes.Buffer, d int) error {
	out.WriteByte('{')
	first := true
	for {
		c, err := s.skipWS()
		if err != nil {
			return s.syntax("unexpected end")
		}
		if c == '}' {
			out.WriteByte('}')
			return nil
		}
		if c == ',' {
			continue
		}
		if c != '"' {
			return s.syntax("want a member name")
		}
		var key bytes.Buffer
		key.WriteByte('"')
		if _, err := s.copyString(&key, -1); err != nil {
			return err
		}
		if c, err = s.skipWS(); err != nil || c != ':' {
			return s.syntax("want ':'")
		}
		if c, err = s.skipWS(); err != nil {
			return s.syntax("unexpected end")
		}
		name := bytes.Trim(key.Bytes(), `"`)
		var val bytes.Buffer
		keep := true
		switch {
		case d == 1 && c == '{':
			if err := s.object(&val, 2); err != nil {
				return err
			}
		case d == 1 || wantedNested[string(name)]:
			val.WriteByte(c)
			if _, err := s.copyRest(c, &val, -1); err != nil {
				return err
			}
		default:
			val.WriteByte(c)
			keep, err = s.copyRest(c, &val, smallValue)
			if err != nil {
				return err
			}
		}
		if !keep {
			continue
		}
		if !first {
			out.WriteByte(',')
		}
		first = false
		out.Write(key.Bytes())
		out.WriteByte(':')
		out.Write(val.Bytes())
	}
}

// copyRest scans the rest of a value whose first byte c was read (and
// written), writing it to out while out holds at most limit bytes (limit
// < 0: no limit). It reports whether the whole value was written.
func (s *scanner) copyRest(c byte, out *bytes.Buffer, limit int) (bool, error) {
	switch c {
	case '"':
		return s.copyString(out, limit)
	case '{', '[':
		depth := 1
		whole := true
		for depth > 0 {
			b, err := s.r.ReadByte()
			if err != nil {
				return false, s.syntax("unexpected end")
			}
			whole = put(out, b, limit) && whole
			switch b {
			case '"':
				w, err := s.copyString(out, limit)
				if err != nil {
					return false, err
				}
				whole = whole && w
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
		}
		return whole, nil
	default:
		// A number, true, false or null: up to the next delimiter.
		for {
			b, err := s.r.ReadByte()
			if err == io.EOF {
				return true, nil
			}
			if err != nil {
				return false, err
			}
			if b == ',' || b == '}' || b == ']' || JSONSpace(b) {
				return true, s.r.UnreadByte()
			}
			if !put(out, b, limit) {
				return false, nil
			}
		}
	}
}

// copyString scans a string whose opening quote was read, through its
// closing quote.
func (s *scanner) copyString(out *bytes.Buffer, limit int) (bool, error) {
	whole := true
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			return false, s.syntax("unterminated string")
		}
		whole = put(out, b, limit) && whole
		switch b {
		case '\\':
			e, err := s.r.ReadByte()
			if err != nil {
				return false, s.syntax("unterminated string")
			}
			whole = put(out, e, limit) && whole
		case '"':
			return whole, nil
		}
	}
}

// put writes b to out while out is under limit (limit < 0: always).
func put(out *bytes.Buffer, b byte, limit int) bool {
	if limit >= 0 && out.Len() >= limit {
		return false
	}
	out.WriteByte(b)
	return true
}

// JSONSpace reports whether c is whitespace between JSON tokens (space,
// tab, newline, carriage return). The config editor in agent/setup
// skips whitespace by it too.
func JSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
