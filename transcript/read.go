package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"
)

// lineParser reads one line of a JSONL transcript into b; it reports
// false for a line it could not read (damaged, or another shape).
type lineParser func(line []byte, b *builder) bool

var parsers = map[string]lineParser{
	"claude":  claudeLine,
	"codex":   codexLine,
	"gemini":  geminiLine,
	"qwen":    qwenLine,
	"copilot": copilotLine,
	// ckpt demo keeps its sample session in Claude Code's format.
	"demo": claudeLine,
}

// Readable reports whether Read has a reader for agent's transcripts.
func Readable(agent string) bool { return parsers[agent] != nil }

// Read finds the turn w in the transcript at path, written by agent. The
// error says what went wrong (a missing file, no reader for the agent, no
// such turn in it), naming the file.
func Read(agent, path string, w Want) (*Conversation, error) {
	parse := parsers[agent]
	if parse == nil {
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrUnknownAgent, agent)
	}
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := decode(agent, parse, f)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	c.Path = path
	t, ok := pick(c.turns, w)
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, ErrNoTurn)
	}
	conv := &Conversation{Turn: t, Agent: agent, Path: path, Skipped: c.skipped, Truncated: c.truncated}
	return conv, nil
}

// ReadFrom reads every turn of a transcript from r, as Read does a file.
// It is Read without the file and the choice of a turn (tests, fuzzing).
func ReadFrom(agent string, r io.Reader) ([]Turn, int, error) {
	parse := parsers[agent]
	if parse == nil {
		return nil, 0, fmt.Errorf("%w (%s)", ErrUnknownAgent, agent)
	}
	c, err := decodeStream(agent, parse, r, false)
	if err != nil {
		return nil, 0, err
	}
	return c.turns, c.skipped, nil
}

// openRegular opens path for reading only if it is a regular file: a
// FIFO or a device named as a transcript must not block or feed ckpt
// forever.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	return f, nil
}

type decoded struct {
	turns     []Turn
	skipped   int
	truncated bool
	Path      string
}

// decode reads a file: only its last MaxRead bytes when it is larger.
func decode(agent string, parse lineParser, f *os.File) (*decoded, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	truncated := false
	if fi.Size() > MaxRead {
		if _, err := f.Seek(fi.Size()-MaxRead, io.SeekStart); err != nil {
			return nil, err
		}
		truncated = true
	}
	c, err := decodeStream(agent, parse, io.LimitReader(f, MaxRead), truncated)
	if err != nil {
		return nil, err
	}
	c.truncated = truncated
	return c, nil
}

// decodeStream reads JSONL from r (Gemini's one-object file too), at most
// MaxRead bytes of it. mid says r starts inside the file, so its first
// line is a part and is dropped.
func decodeStream(agent string, parse lineParser, r io.Reader, mid bool) (*decoded, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, MaxRead), 64<<10)
	b := newBuilder()
	c := &decoded{}
	if agent == "gemini" && !mid {
		// The older recording is one JSON object; peek for it.
		if ok, err := geminiWhole(br, b); err != nil || ok {
			c.turns = b.done()
			return c, err
		}
	}
	first := true
	for {
		line, long, err := readLine(br)
		if len(line) > 0 || long {
			switch {
			case first && mid:
				// The tail of a line cut by the seek.
			case long:
				c.skipped++
			default:
				if t := bytes.TrimSpace(line); len(t) > 0 && !parseSafely(parse, t, b) {
					c.skipped++
				}
			}
		}
		first = false
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	b.flushGemini()
	c.turns = b.done()
	return c, nil
}

// parseSafely runs one line parser, turning a panic (a bug meeting a
// shape nobody foresaw) into a skipped line: a transcript costs the view,
// never the program.
func parseSafely(parse lineParser, line []byte, b *builder) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return parse(line, b)
}

// readLine reads one line without its newline. A line over MaxLine is
// read through and dropped: long reports it.
func readLine(br *bufio.Reader) (line []byte, long bool, err error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			if len(buf)+len(chunk) > MaxLine {
				long, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if long {
			return nil, true, err
		}
		return bytes.TrimSuffix(buf, []byte("\n")), false, err
	}
}

// builder gathers a transcript's prompts, replies and calls into turns.
type builder struct {
	turns []Turn
	calls map[string][2]int // call id → turn and call index
	// codexTurn is the turn id a Codex task_started named, for the
	// user_message that follows it.
	codexTurn string
	// gemini holds Gemini CLI's JSONL messages by id, in first-seen order,
	// until the end: a later line with the same id replaces the message.
	gemini    []geminiMessage
	geminiIDs map[string]int
}

func newBuilder() *builder {
	return &builder{calls: map[string][2]int{}, geminiIDs: map[string]int{}}
}

func (b *builder) cur() *Turn {
	if len(b.turns) == 0 {
		return nil
	}
	return &b.turns[len(b.turns)-1]
}

// prompt starts a turn.
func (b *builder) prompt(id string, at time.Time, text string) {
	b.turns = append(b.turns, Turn{ID: id, At: at, Prompt: clip(text)})
}

// reply notes the agent's text; the last one of a turn is its reply.
func (b *builder) reply(text string) {
	if t := b.cur(); t != nil && strings.TrimSpace(text) != "" {
		t.Reply = clip(strings.TrimSpace(text))
	}
}

// call notes a tool call; a call id seen before is not added again.
func (b *builder) call(id, name, target string) {
	t := b.cur()
	if t == nil || len(t.Calls) >= MaxCalls {
		return
	}
	if id != "" {
		if _, seen := b.calls[id]; seen {
			return
		}
		b.calls[id] = [2]int{len(b.turns) - 1, len(t.Calls)}
	}
	t.Calls = append(t.Calls, Call{Name: cut(name, 200), Target: cut(target, 4096), id: id})
}

// result notes how the call id ended.
func (b *builder) result(id string, failed bool) {
	at, ok := b.calls[id]
	if !ok {
		return
	}
	st := StateOK
	if failed {
		st = StateFailed
	}
	b.turns[at[0]].Calls[at[1]].State = st
}

func (b *builder) done() []Turn { return b.turns }

// cut shortens a one-line value (a tool's name or target) to n bytes.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// targetKeys are the members of a tool's input that say what it works
// on, in the order they are looked for.
var targetKeys = []string{"file_path", "path", "filePath", "notebook_path", "absolute_path", "dir_path",
	"command", "cmd", "pattern", "url", "query", "description"}

// targetOf is the path or command a tool's input names: the first of
// targetKeys it holds, a command given as an argument list joined, and a
// patch (Codex, opencode) reduced to the files it names.
func targetOf(input json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		var s string
		if json.Unmarshal(input, &s) == nil {
			return patchFiles(s)
		}
		return ""
	}
	for _, k := range []string{"patch", "patchText", "input"} {
		var s string
		if json.Unmarshal(m[k], &s) == nil && strings.Contains(s, "*** Begin Patch") {
			return patchFiles(s)
		}
	}
	for _, k := range targetKeys {
		v, ok := m[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) == nil && s != "" {
			if k == "command" || k == "cmd" {
				return oneLine(s)
			}
			return s
		}
		var list []string
		if json.Unmarshal(v, &list) == nil && len(list) > 0 {
			// ["bash", "-lc", "make test"]: the script is what was asked.
			if len(list) == 3 && (list[1] == "-lc" || list[1] == "-c") {
				return oneLine(list[2])
			}
			return oneLine(strings.Join(list, " "))
		}
	}
	return ""
}

// patchFiles lists the files a patch in Codex's format names, or, for
// other text, its first line.
func patchFiles(s string) string {
	var files []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		for _, h := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(l, h); ok {
				files = append(files, strings.TrimSpace(p))
			}
		}
	}
	if len(files) == 0 {
		return oneLine(s)
	}
	return strings.Join(files, ", ")
}

// oneLine is a command as one line: its lines joined with " ⏎ ".
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(s), "\n", " ⏎ ")), " ")
}

// textOf reads a message's content: a string, or a list of parts whose
// "text" members are joined.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		if (p.Type == "" || p.Type == "text" || p.Type == "input_text" || p.Type == "output_text") && p.Text != "" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}
