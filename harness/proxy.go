package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// The harness lays out one run like this; the proxy finds everything from
// its own path, since an agent may not pass the harness's environment to
// its hooks.
//
//	run/bin/ckpt        the proxy (this test binary, copied) after install
//	run/bin/ckpt.real   the ckpt under test
//	run/bin/BROKEN      when present, the proxy's hook does nothing at all
//	run/hooklog/        one record per hook call
//	run/project/        the agent's project
//	run/home/           the agent's HOME
const (
	realName   = "ckpt.real"
	brokenName = "BROKEN"
)

// hookRecord is one hook call as the proxy saw it.
type hookRecord struct {
	At    int64            `json:"at"` // Unix nanoseconds, when the call arrived
	Args  []string         `json:"args"`
	Event json.RawMessage  `json:"event"`
	Tree  map[string]entry `json:"tree"` // the project's files when the call arrived
}

// entry is a file of a project tree.
type entry struct {
	Content string      `json:"content"`
	Mode    fs.FileMode `json:"mode"`
}

// runProxy is the test binary run as bin/ckpt: it records a hook call and
// hands it on to ckpt.real unchanged; any other command goes straight on.
func runProxy(args []string) int {
	self, err := os.Executable()
	if err != nil {
		return 1
	}
	bin := filepath.Dir(self)
	run := filepath.Dir(bin)
	if len(args) == 0 || args[0] != "hook" {
		return execReal(filepath.Join(bin, realName), args, os.Stdin)
	}
	data, _ := io.ReadAll(os.Stdin)
	rec := hookRecord{At: time.Now().UnixNano(), Args: args, Tree: snapshot(filepath.Join(run, "project"))}
	if json.Valid(bytes.TrimSpace(data)) {
		rec.Event = json.RawMessage(bytes.TrimSpace(data))
	} else {
		rec.Event, _ = json.Marshal(string(data))
	}
	if b, err := json.Marshal(rec); err == nil {
		dir := filepath.Join(run, "hooklog")
		_ = os.MkdirAll(dir, 0o755)
		_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%020d-%d.json", rec.At, os.Getpid())), b, 0o644)
	}
	if _, err := os.Stat(filepath.Join(bin, brokenName)); err == nil {
		return 0 // a hook that does nothing: the harness must fail
	}
	return execReal(filepath.Join(bin, realName), args, bytes.NewReader(data))
}

func execReal(real string, args []string, stdin io.Reader) int {
	cmd := exec.Command(real, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return 1
	}
	return 0
}

// skipDirs are folders a tree snapshot leaves out: ckpt's store, the
// agents' own config and what they install there.
var skipDirs = map[string]bool{".osfoundry": true, ".git": true, "node_modules": true,
	".claude": true, ".codex": true, ".gemini": true, ".opencode": true,
	".pi": true, ".github": true, ".clinerules": true, ".qwen": true}

// snapshot reads the project's files, relative paths with / separators.
func snapshot(root string) map[string]entry {
	out := map[string]entry{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != root && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		c := string(b)
		if !utf8.ValidString(c) {
			c = fmt.Sprintf("(binary, %d bytes)", len(b))
		}
		out[filepath.ToSlash(rel)] = entry{Content: c, Mode: info.Mode().Perm()}
		return nil
	})
	return out
}

// readHookLog reads a run's hook records, in the order they arrived.
func readHookLog(run string) ([]hookRecord, error) {
	dir := filepath.Join(run, "hooklog")
	names, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []hookRecord
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n.Name()))
		if err != nil {
			return nil, err
		}
		var r hookRecord
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", n.Name(), err)
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out, nil
}

// scenario turns a run's hook records into a scenario file of package
// ckpt/agent/hooktest: the project as the first call found it, then each
// event, preceded by what changed in the project since the call before it
// (the tool's own write). Paths of the run become {{ROOT}} and a fixed
// home.
func scenario(recs []hookRecord, run, note string) []byte {
	var out bytes.Buffer
	line := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(b)
		out.WriteByte('\n')
	}
	line(map[string]any{"note": note})
	if len(recs) == 0 {
		return out.Bytes()
	}
	setup := map[string]any{}
	for p, e := range recs[0].Tree {
		if e.Mode == 0o644 {
			setup[p] = e.Content
		} else {
			setup[p] = map[string]any{"content": e.Content, "mode": e.Mode}
		}
	}
	line(map[string]any{"setup": setup})
	prev := recs[0].Tree
	for _, r := range recs {
		if apply := treeDiff(prev, r.Tree); len(apply) > 0 {
			line(map[string]any{"apply": apply})
		}
		prev = r.Tree
		line(map[string]any{"event": json.RawMessage(anonymise(r.Event, run))})
	}
	return out.Bytes()
}

// treeDiff is what turns tree a into b, as a scenario's apply: content
// for each file added or changed, null for each removed.
func treeDiff(a, b map[string]entry) map[string]*string {
	out := map[string]*string{}
	for p, e := range b {
		if old, ok := a[p]; !ok || old.Content != e.Content {
			c := e.Content
			out[p] = &c
		}
	}
	for p := range a {
		if _, ok := b[p]; !ok {
			out[p] = nil
		}
	}
	return out
}

// anonymise replaces the run's folders in a raw event: the project by
// {{ROOT}}, the home by /home/user, the run by /tmp/run.
func anonymise(raw []byte, run string) []byte {
	s := string(raw)
	forms := []string{run}
	if r, err := filepath.EvalSymlinks(run); err == nil && r != run {
		forms = append(forms, r)
	}
	for _, f := range forms {
		s = strings.ReplaceAll(s, f+"/project", "{{ROOT}}")
		s = strings.ReplaceAll(s, f+"/home", "/home/user")
		s = strings.ReplaceAll(s, f, "/tmp/run")
	}
	return []byte(s)
}
