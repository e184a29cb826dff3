package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestProjectKeepsWhatAdaptersRead: every event of every scenario parses
// to the same thing from its reduced form as from the whole.
func TestProjectKeepsWhatAdaptersRead(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "hooks", "*", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no scenarios")
	}
	getenv := func(string) string { return "/proj" }
	n := 0
	for _, f := range files {
		a := adapters[filepath.Base(filepath.Dir(f))]
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var l struct {
				Event    json.RawMessage   `json:"event"`
				Parallel []json.RawMessage `json:"parallel"`
			}
			if json.Unmarshal(sc.Bytes(), &l) != nil {
				continue
			}
			for _, ev := range append(l.Parallel, l.Event) {
				if len(ev) == 0 {
					continue
				}
				n++
				want, werr := a.parse(ev, getenv)
				small, err := projectEvent(bytes.NewReader(ev))
				if err != nil {
					t.Fatalf("%s: project %s: %v", f, ev, err)
				}
				got, gerr := a.parse(small, getenv)
				if !reflect.DeepEqual(got, want) || (werr == nil) != (gerr == nil) {
					t.Errorf("%s: %s\nwhole:   %+v %v\nreduced: %+v %v\nfrom %s", filepath.Base(f), ev, want, werr, got, gerr, small)
				}
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d events checked", n)
	}
}

// repeatReader yields one byte forever.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// TestProjectHugeEvent: a PostToolUse bigger than any cap keeps its path
// (so the seal happens), holds none of the content, and leaves nothing
// unread on standard input.
func TestProjectHugeEvent(t *testing.T) {
	const size = 80 << 20
	head := `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/p/big.bin","content":"`
	mid := `"},"tool_response":{"type":"create","filePath":"/p/big.bin","content":"`
	tail := `","structuredPatch":[]},"tool_use_id":"t1"}` + "\n\n"
	counted := &countingReader{r: io.MultiReader(strings.NewReader(head), io.LimitReader(repeatReader('a'), size), strings.NewReader(mid),
		io.LimitReader(repeatReader('b'), size), strings.NewReader(tail), strings.NewReader("trailing bytes the agent wrote"))}
	small, err := projectEvent(counted)
	if err != nil {
		t.Fatal(err)
	}
	if len(small) > 1024 {
		t.Errorf("reduced event is %d bytes", len(small))
	}
	if want := int64(len(head) + len(mid) + len(tail) + 2*size + len("trailing bytes the agent wrote")); counted.n != want {
		t.Errorf("read %d bytes of %d: standard input not drained", counted.n, want)
	}
	ev, err := parseClaude(small, func(string) string { return "" })
	if err != nil || ev.do != afterWrite || len(ev.paths) != 1 || ev.paths[0] != "/p/big.bin" {
		t.Errorf("parsed %+v, %v from %s", ev, err, small)
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestProjectEvent(t *testing.T) {
	big := strings.Repeat("x", smallValue+1)
	cases := []struct {
		name, in, want string
		err            bool
	}{
		{"flat", `{"a": 1, "b": "two", "c": [1, {"d": 2}], "e": null}`, `{"a":1,"b":"two","c":[1, {"d": 2}],"e":null}`, false},
		{"nested small kept, big dropped", `{"tool_input": {"file_path": "/x", "content": "` + big + `", "n": 3, "deep": {"k": "v"}}}`, `{"tool_input":{"file_path":"/x","n":3,"deep":{"k": "v"}}}`, false},
		{"wanted kept whole", `{"tool_input": {"command": "` + big + `"}}`, `{"tool_input":{"command":"` + big + `"}}`, false},
		{"escapes", `{"p": "a\"b\\", "tool_input": {"file_path": "q\"}"}}`, `{"p":"a\"b\\","tool_input":{"file_path":"q\"}"}}`, false},
		{"bare string", ` "*** Begin Patch" `, `"*** Begin Patch"`, false},
		{"empty", ``, ``, false},
		{"truncated", `{"a": "b`, ``, true},
		{"not json", `{a}`, ``, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := projectEvent(strings.NewReader(c.in))
			if (err != nil) != c.err {
				t.Fatalf("err %v", err)
			}
			if !c.err && string(got) != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if !c.err && c.want != "" && !json.Valid(got) {
				t.Errorf("not valid JSON: %s", got)
			}
		})
	}
}

// TestJSONSpace: JSONSpace holds exactly the bytes encoding/json skips
// between tokens.
func TestJSONSpace(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := json.Valid([]byte{'[', '"', '"', byte(c), ']'})
		if got := JSONSpace(byte(c)); got != want {
			t.Errorf("JSONSpace(%q) = %v, want %v", byte(c), got, want)
		}
	}
}
