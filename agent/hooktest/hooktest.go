// Package hooktest replays recorded agent hook sessions against a fresh
// project and checks that rewinding gives the folder back exactly. The
// agent package's tests replay them in-process and the whole-program tests
// through the built binary, with the same files.
//
// # Scenario files
//
// A scenario is a JSON Lines file in a folder named after the agent
// (testdata/hooks/claude/*.jsonl). Each line is one object with one of:
//
//	{"setup": {"a.txt": "text", "bin/run.sh": {"content": "…", "mode": 493}}}
//	    the project's files before anything happens
//	{"event": {…}, "env": {"K": "V"}}
//	    one hook call: the agent's JSON on standard input
//	{"parallel": [{…}, {…}]}
//	    hook calls made at once, as parallel tool calls make them
//	{"apply": {"a.txt": "new text", "old.txt": null}}
//	    what the tool itself does to the folder (null deletes)
//	{"sh": "sed -i s/a/b/ a.txt && mv b.txt c.txt"}
//	    what a shell command does to the folder (sh -c, in the project)
//	{"unswept": ["node_modules"]}
//	    folders a rewind does not give back (ignored ones): left out of
//	    the comparisons
//	{"expect": {"a.txt": "modified"}}
//	    statuses (ckpt show's words) of paths in the newest turn
//	{"turns": 2}
//	    how many agent turns the store holds now
//	{"logged": "substring"}
//	    a line of the store's error log holds this; without any such line
//	    the error log must stay empty
//	{"note": "…"}
//	    a comment
//
// Strings in events have {{ROOT}} replaced by the project's path. The agent's
// project-dir variable ($CLAUDE_PROJECT_DIR, $GEMINI_PROJECT_DIR) is set to
// the project for every call unless the line's env overrides it.
//
// After the last line, every turn is rewound, newest first; after each
// rewind the folder must be exactly as it was before that turn began
// (files, their bytes and modes, and folders). Then every rewind is undone,
// oldest rewind last, and the folder must be exactly as at the end of the
// scenario.
package hooktest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ckpt-dev/ckpt/store"
)

// Call is one hook invocation.
type Call struct {
	Agent string
	Stdin []byte
	Env   map[string]string // added to the environment
	Root  string            // the project (tests may pass it as --root; the scenarios do not need it)
}

// Result is what a hook invocation gave back.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Runner runs one hook call. It must be safe to call from several
// goroutines at once.
type Runner func(t testing.TB, c Call) Result

// Reply is what each agent expects on standard output from every call.
func Reply(agent string) string {
	if agent == "gemini" {
		return "{}\n"
	}
	return ""
}

type line struct {
	Setup    map[string]json.RawMessage `json:"setup"`
	Event    json.RawMessage            `json:"event"`
	Env      map[string]string          `json:"env"`
	Parallel []json.RawMessage          `json:"parallel"`
	Apply    map[string]*string         `json:"apply"`
	Sh       string                     `json:"sh"`
	Unswept  []string                   `json:"unswept"`
	Expect   map[string]string          `json:"expect"`
	Turns    *int                       `json:"turns"`
	Logged   string                     `json:"logged"`
	Note     string                     `json:"note"`
}

// Scenarios lists the scenario files under dir (testdata/hooks), by agent.
func Scenarios(t testing.TB, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	files, err := filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios under %s: %v", dir, err)
	}
	for _, f := range files {
		a := filepath.Base(filepath.Dir(f))
		out[a] = append(out[a], f)
	}
	return out
}

// Replay runs the scenario in file against a new project in a temporary
// folder, calling run for each hook call, and checks it as the package doc
// says.
func Replay(t *testing.T, file string, run Runner) {
	t.Helper()
	agent := filepath.Base(filepath.Dir(file))
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	rootJSON, _ := json.Marshal(root)
	data = bytes.ReplaceAll(data, []byte("{{ROOT}}"), rootJSON[1:len(rootJSON)-1])

	r := &replay{t: t, agent: agent, root: root, run: run}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	n := 0
	for sc.Scan() {
		n++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var l line
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			t.Fatalf("%s:%d: %v", file, n, err)
		}
		r.where = fmt.Sprintf("%s:%d", filepath.Base(file), n)
		r.step(l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	r.finish()
}

type replay struct {
	t      *testing.T
	agent  string
	root   string
	run    Runner
	where  string
	turns  []string                     // agent turns, oldest first
	before map[string]map[string]string // the folder before each turn began
	logged []string
	skip   []string // folders left out of the comparisons
}

func (r *replay) fatalf(format string, args ...any) {
	r.t.Helper()
	r.t.Fatalf("%s: "+format, append([]any{r.where}, args...)...)
}

func (r *replay) step(l line) {
	r.t.Helper()
	switch {
	case l.Setup != nil:
		for p, v := range l.Setup {
			var f struct {
				Content string      `json:"content"`
				Mode    fs.FileMode `json:"mode"`
			}
			if json.Unmarshal(v, &f.Content) != nil {
				if err := json.Unmarshal(v, &f); err != nil {
					r.fatalf("setup %s: %v", p, err)
				}
			}
			if f.Mode == 0 {
				f.Mode = 0o644
			}
			r.write(p, f.Content, f.Mode)
		}
	case l.Event != nil:
		r.hooks([]json.RawMessage{l.Event}, l.Env)
	case l.Parallel != nil:
		r.hooks(l.Parallel, l.Env)
	case l.Apply != nil:
		paths := make([]string, 0, len(l.Apply))
		for p := range l.Apply {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			if c := l.Apply[p]; c == nil {
				if err := os.Remove(r.abs(p)); err != nil {
					r.fatalf("apply: %v", err)
				}
			} else {
				mode := fs.FileMode(0o644)
				if fi, err := os.Stat(r.abs(p)); err == nil {
					mode = fi.Mode().Perm()
				}
				r.write(p, *c, mode)
			}
		}
	case l.Sh != "":
		cmd := exec.Command("sh", "-c", l.Sh)
		cmd.Dir = r.root
		if out, err := cmd.CombinedOutput(); err != nil {
			r.fatalf("sh %q: %v\n%s", l.Sh, err, out)
		}
	case l.Unswept != nil:
		r.skip = append(r.skip, l.Unswept...)
	case l.Expect != nil:
		r.expect(l.Expect)
	case l.Turns != nil:
		if got := len(r.agentTurns()); got != *l.Turns {
			r.fatalf("%d turns, want %d", got, *l.Turns)
		}
	case l.Logged != "":
		r.logged = append(r.logged, l.Logged)
	case l.Note != "":
	default:
		r.fatalf("empty line object")
	}
}

func (r *replay) abs(p string) string { return filepath.Join(r.root, filepath.FromSlash(p)) }

func (r *replay) write(p, content string, mode fs.FileMode) {
	r.t.Helper()
	if err := os.MkdirAll(filepath.Dir(r.abs(p)), 0o755); err != nil {
		r.fatalf("%v", err)
	}
	if err := os.WriteFile(r.abs(p), []byte(content), mode); err != nil {
		r.fatalf("%v", err)
	}
	if err := os.Chmod(r.abs(p), mode); err != nil {
		r.fatalf("%v", err)
	}
}

// hooks makes the calls (at once when there are several) and notes the
// turns they started.
func (r *replay) hooks(events []json.RawMessage, env map[string]string) {
	r.t.Helper()
	before := Snapshot(r.t, r.root)
	full := map[string]string{}
	switch r.agent {
	case "claude":
		full["CLAUDE_PROJECT_DIR"] = r.root
	case "gemini":
		full["GEMINI_PROJECT_DIR"] = r.root
	}
	for k, v := range env {
		full[k] = strings.ReplaceAll(v, "{{ROOT}}", r.root)
	}
	results := make([]Result, len(events))
	var wg sync.WaitGroup
	for i, ev := range events {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = r.run(r.t, Call{Agent: r.agent, Stdin: ev, Env: full, Root: r.root})
		}()
	}
	wg.Wait()
	for i, res := range results {
		if res.Code != 0 || res.Stderr != "" || res.Stdout != Reply(r.agent) {
			r.fatalf("hook call %d: exit %d, stdout %q, stderr %q; want exit 0, stdout %q, no stderr", i, res.Code, res.Stdout, res.Stderr, Reply(r.agent))
		}
	}
	now := r.agentTurns()
	if len(now) > len(r.turns)+1 {
		r.fatalf("one step opened %d turns: %v", len(now)-len(r.turns), now[len(r.turns):])
	}
	if len(now) == len(r.turns)+1 {
		if r.before == nil {
			r.before = map[string]map[string]string{}
		}
		r.before[now[len(now)-1]] = before
	}
	r.turns = now
}

func (r *replay) open() *store.Store {
	r.t.Helper()
	s, err := store.Open(r.root, store.Options{})
	if err != nil {
		r.fatalf("open the store: %v", err)
	}
	return s
}

// agentTurns lists the store's agent turns, oldest first.
func (r *replay) agentTurns() []string {
	r.t.Helper()
	if _, err := os.Stat(filepath.Join(r.root, ".osfoundry", "checkpoints")); err != nil {
		return nil
	}
	s := r.open()
	defer s.Close()
	es, err := s.Log(false)
	if err != nil {
		r.fatalf("log: %v", err)
	}
	var out []string
	for _, e := range es {
		if e.Kind == store.KindAgent && e.State == store.StateActive {
			if e.Source == nil || e.Source.Agent != r.agent {
				r.fatalf("turn %s has source %+v, want agent %s", e.ID, e.Source, r.agent)
			}
			out = append(out, e.ID)
		}
	}
	slices.Reverse(out)
	return out
}

func (r *replay) expect(want map[string]string) {
	r.t.Helper()
	if len(r.turns) == 0 {
		r.fatalf("expect with no turn")
	}
	s := r.open()
	defer s.Close()
	turn := r.turns[len(r.turns)-1]
	files, err := s.Files(turn, true)
	if err != nil {
		r.fatalf("files of turn %s: %v", turn, err)
	}
	got := map[string]string{}
	for _, f := range files {
		got[f.Path] = string(f.Status)
	}
	for p, st := range want {
		if got[p] != st {
			r.fatalf("turn %s: %s is %q, want %q (turn holds %v)", turn, p, got[p], st, got)
		}
	}
}

func (r *replay) finish() {
	r.t.Helper()
	r.where = "end"
	if len(r.turns) == 0 {
		r.fatalf("the scenario started no turn")
	}
	s := r.open()
	defer s.Close()
	lines, err := s.Errors()
	if err != nil {
		r.fatalf("error log: %v", err)
	}
	for _, want := range r.logged {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, want) }) {
			r.fatalf("error log lacks %q: %q", want, lines)
		}
	}
	if len(r.logged) == 0 && len(lines) > 0 {
		r.fatalf("error log: %q", lines)
	}
	end := Snapshot(r.t, r.root)
	for i := len(r.turns) - 1; i >= 0; i-- {
		turn := r.turns[i]
		p, err := s.PlanRewind(turn)
		if err != nil {
			r.fatalf("plan rewind %s: %v", turn, err)
		}
		res, err := s.Apply(p, nil)
		if err != nil {
			r.fatalf("rewind %s: %v", turn, err)
		}
		if len(res.Failed) > 0 {
			r.fatalf("rewind %s failed for %+v", turn, res.Failed)
		}
		got, want := Snapshot(r.t, r.root), r.before[turn]
		if d := diff(r.keep(want), r.keep(got)); d != "" {
			r.fatalf("after rewinding turn %s the folder differs from before it:\n%s", turn, d)
		}
	}
	for range r.turns {
		p, err := s.PlanUndo(false)
		if err != nil {
			r.fatalf("plan undo: %v", err)
		}
		res, err := s.Apply(p, nil)
		if err != nil || len(res.Failed) > 0 {
			r.fatalf("undo: %v %+v", err, res)
		}
	}
	if d := diff(r.keep(end), r.keep(Snapshot(r.t, r.root))); d != "" {
		r.fatalf("after undoing every rewind the folder differs from the end of the scenario:\n%s", d)
	}
}

// keep is snap without the unswept folders.
func (r *replay) keep(snap map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range snap {
		if !slices.ContainsFunc(r.skip, func(d string) bool { return k == d+"/" || strings.HasPrefix(k, d+"/") }) {
			out[k] = v
		}
	}
	return out
}

// Snapshot maps every file and folder under root, except .osfoundry and
// .git, to its content and mode.
func Snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if rel == ".osfoundry" || rel == ".git" {
			return filepath.SkipDir
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			out[rel+"/"] = "dir"
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = fmt.Sprintf("%v %q", fi.Mode().Perm(), b)
		default:
			link, _ := os.Readlink(p)
			out[rel] = fmt.Sprintf("%v -> %s", fi.Mode().Type(), link)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diff(want, got map[string]string) string {
	var b strings.Builder
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		w, okw := want[k]
		g, okg := got[k]
		switch {
		case !okg:
			fmt.Fprintf(&b, "  missing %s (%s)\n", k, w)
		case !okw:
			fmt.Fprintf(&b, "  extra   %s (%s)\n", k, g)
		case w != g:
			fmt.Fprintf(&b, "  changed %s: %s, want %s\n", k, g, w)
		}
	}
	return b.String()
}
