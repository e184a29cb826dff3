package setup

// Codex runs a project's hooks only when two things hold, both recorded in
// the user's $CODEX_HOME/config.toml (a project cannot approve itself):
//
//   - the project is trusted: [projects."<root>"] trust_level = "trusted";
//   - each hook is approved, as Codex's /hooks screen records it:
//     [hooks.state."<abs>/.codex/hooks.json:<event>:<group>:<handler>"]
//     trusted_hash = "sha256:<hex>".
//
// The hash (codex-rs/hooks/src/engine/discovery.rs, command_hook_hash, and
// codex-rs/config/src/fingerprint.rs, version_for_toml) is the SHA-256 of
// the compact JSON, keys sorted at every level, of the hook's normalised
// identity: {"event_name": "pre_tool_use", "matcher": M, "hooks": [{"type":
// "command", "command": C, "timeout": T, "async": A}]}, with the timeout
// defaulted to 600 and at least 1, a statusMessage kept when set, and the
// matcher left out for events that take none (UserPromptSubmit, Stop).
// Codex goes through TOML on the way, which drops absent fields. So a hook
// whose command (the binary's path) or timeout changes is no longer
// approved, and neither is one whose group moves to another position.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// CodexHook is one of ckpt's hooks in a project's .codex/hooks.json, as
// Codex identifies it for approval.
type CodexHook struct {
	Key     string // the hooks.state key
	Event   string // the hooks.json event name (PreToolUse)
	Matcher string
	Command string
	Timeout int
	Hash    string // the trusted_hash that approves it
}

// codexEventLabel is Codex's snake_case name of an event, used in keys and
// hashes.
func codexEventLabel(event string) string {
	var b strings.Builder
	for i, r := range event {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codexEventTakesMatcher reports whether Codex keeps a matcher for event.
func codexEventTakesMatcher(event string) bool {
	switch event {
	case "UserPromptSubmit", "Stop":
		return false
	}
	return true
}

// codexHookHash is the trusted_hash Codex computes for one command hook.
func codexHookHash(event, matcher, command string, timeout *int, async bool, status *string) string {
	t := 600
	if timeout != nil {
		t = max(*timeout, 1)
	}
	handler := map[string]any{"type": "command", "command": command, "timeout": t, "async": async}
	if status != nil {
		handler["statusMessage"] = *status
	}
	id := map[string]any{"event_name": codexEventLabel(event), "hooks": []any{handler}}
	if m := strings.TrimSpace(matcher); m != "" && codexEventTakesMatcher(event) {
		id["matcher"] = m
	}
	// encoding/json sorts map keys and writes no spaces: the canonical form.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(id)
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// CodexHooks lists ckpt's hooks in root's .codex/hooks.json with their
// approval keys and hashes, in file order. The key names the file by its
// absolute path as given in root.
func CodexHooks(root string) ([]CodexHook, error) {
	path := filepath.Join(codexRoot(root), ".codex", "hooks.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return codexHooks(path, data)
}

// codexHooks lists ckpt's hooks in data, the content of the hooks.json at
// path.
func codexHooks(path string, data []byte) ([]CodexHook, error) {
	var file struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type          string  `json:"type"`
				Command       string  `json:"command"`
				Timeout       *int    `json:"timeout"`
				Async         bool    `json:"async"`
				StatusMessage *string `json:"statusMessage"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	events := make([]string, 0, len(file.Hooks))
	for e := range file.Hooks {
		events = append(events, e)
	}
	sort.Strings(events)
	var out []CodexHook
	for _, e := range events {
		for gi, g := range file.Hooks[e] {
			m := ""
			if g.Matcher != nil {
				m = *g.Matcher
			}
			for hi, h := range g.Hooks {
				if _, ok := hookCommandExe(h.Command, "codex"); h.Type != "command" || !ok {
					continue
				}
				t := 600
				if h.Timeout != nil {
					t = max(*h.Timeout, 1)
				}
				out = append(out, CodexHook{
					Key:     fmt.Sprintf("%s:%s:%d:%d", path, codexEventLabel(e), gi, hi),
					Event:   e,
					Matcher: m,
					Command: h.Command,
					Timeout: t,
					Hash:    codexHookHash(e, m, h.Command, h.Timeout, h.Async, h.StatusMessage),
				})
			}
		}
	}
	return out, nil
}

// codexRoot is the project root as Codex names it in keys: the working
// directory it starts in, as the system reports it, with no symlinks
// (/tmp/x on macOS is /private/tmp/x to Codex).
func codexRoot(root string) string {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		return r
	}
	return root
}

// CodexHome is $CODEX_HOME, else ~/.codex.
func CodexHome(getenv func(string) string) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return h
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".codex")
}

// CodexTrust is what the user's Codex config says about a project.
type CodexTrust struct {
	Config         string            // the config.toml read
	ProjectTrusted bool              // trust_level = "trusted" for the root
	Approved       map[string]string // hooks.state key → trusted_hash, for the keys asked about
}

// ReadCodexTrust reads the project's trust and the approvals of keys from
// config.toml in codexHome. A missing file trusts nothing.
func ReadCodexTrust(codexHome, root string, keys []string) (*CodexTrust, error) {
	t := &CodexTrust{Config: filepath.Join(codexHome, "config.toml"), Approved: map[string]string{}}
	data, err := os.ReadFile(t.Config)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, err
	}
	tables := tomlTables(data)
	if tables[projectTable(codexRoot(root))]["trust_level"] == "trusted" {
		t.ProjectTrusted = true
	}
	for _, k := range keys {
		if h, ok := tables[stateTable(k)]["trusted_hash"]; ok {
			t.Approved[k] = h
		}
	}
	return t, nil
}

func projectTable(root string) string { return "projects." + tomlQuote(root) }
func stateTable(key string) string    { return "hooks.state." + tomlQuote(key) }

// tomlQuote is s as a TOML basic string.
func tomlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// tomlTables reads the `key = "string"` pairs of each [table] in a TOML
// file, tables named as tomlQuote writes them. It understands only what
// ckpt needs: headers with bare and quoted keys, and string values.
func tomlTables(data []byte) map[string]map[string]string {
	out := map[string]map[string]string{}
	cur := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") && !strings.HasPrefix(line, "[[") {
			if name, ok := tomlHeader(line); ok {
				cur = name
				if out[cur] == nil {
					out[cur] = map[string]string{}
				}
				continue
			}
			cur = "\x00" // a header ckpt cannot read: ignore its keys
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || cur == "" || cur == "\x00" {
			continue
		}
		k = strings.TrimSpace(k)
		v = strings.TrimSpace(v)
		if s, err := strconv.Unquote(v); err == nil && strings.HasPrefix(v, `"`) {
			out[cur][k] = s
		} else if strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") && len(v) >= 2 {
			out[cur][k] = v[1 : len(v)-1]
		}
	}
	return out
}

// tomlHeader normalises a [table] header line to the form tomlQuote
// writes: dotted parts, quoted ones as basic strings.
func tomlHeader(line string) (string, bool) {
	end := strings.LastIndexByte(line, ']')
	if end < 0 {
		return "", false
	}
	if rest := strings.TrimSpace(line[end+1:]); rest != "" && !strings.HasPrefix(rest, "#") {
		return "", false
	}
	s := strings.TrimSpace(line[1:end])
	var parts []string
	for s != "" {
		s = strings.TrimLeft(s, " \t")
		var part string
		switch s[0] {
		case '"':
			i := 1
			for i < len(s) && s[i] != '"' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(s) {
				return "", false
			}
			u, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", false
			}
			part, s = tomlQuote(u), s[i+1:]
		case '\'':
			i := strings.IndexByte(s[1:], '\'')
			if i < 0 {
				return "", false
			}
			part, s = tomlQuote(s[1:i+1]), s[i+2:]
		default:
			i := strings.IndexAny(s, ". \t")
			if i < 0 {
				i = len(s)
			}
			part, s = s[:i], s[i:]
		}
		parts = append(parts, part)
		s = strings.TrimLeft(s, " \t")
		if s != "" {
			if s[0] != '.' {
				return "", false
			}
			s = s[1:]
		}
	}
	return strings.Join(parts, "."), len(parts) > 0
}

// ApproveCodex records in codexHome's config.toml what Codex's /hooks
// screen records when a user approves each of ckpt's hooks in root, and
// the project's trust when it is missing. It keeps every other byte of the
// file: a table ckpt sets is appended when absent, or its one line is
// replaced. Under dryRun it writes nothing. The Change's Diff shows exactly
// what is (or would be) written. hooksJSON, when not nil, stands for the
// project's .codex/hooks.json (what an install under --dry-run would write).
func ApproveCodex(root, codexHome string, hooksJSON []byte, dryRun bool) (*Change, []CodexHook, error) {
	var hooks []CodexHook
	var err error
	if hooksJSON != nil {
		hooks, err = codexHooks(filepath.Join(codexRoot(root), ".codex", "hooks.json"), hooksJSON)
	} else {
		hooks, err = CodexHooks(root)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%s: no ckpt hooks installed for codex (run `ckpt install codex` first)", filepath.Join(root, ".codex", "hooks.json"))
	}
	if err != nil {
		return nil, nil, err
	}
	if len(hooks) == 0 {
		return nil, nil, fmt.Errorf("%s: %w", filepath.Join(root, ".codex", "hooks.json"), errNotInstalled)
	}
	path := filepath.Join(codexHome, "config.toml")
	c := &Change{Path: path}
	if err := c.readOld(); err != nil {
		return nil, nil, err
	}
	text := string(c.Old)
	text, err = tomlSet(text, projectTable(codexRoot(root)), "trust_level", "trusted")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, h := range hooks {
		if text, err = tomlSet(text, stateTable(h.Key), "trusted_hash", h.Hash); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	c.New, c.Exists = []byte(text), true
	if dryRun || !c.Changed() {
		return c, hooks, nil
	}
	if fi, err := os.Lstat(codexHome); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, nil, fmt.Errorf("%s is a symlink; refusing to write through it", codexHome)
	}
	if err := writeFile(path, c.New, 0o644); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	c.Written = true
	return c, hooks, nil
}

// tomlSet sets key = "value" in [table] of a TOML text: the key's line
// replaced when the table has it, the line added at the table's end when
// the table has not, the table appended at the end of the file when it is
// missing. A table defined some other way (inline, dotted keys) is an
// error rather than a second definition Codex would refuse to load.
func tomlSet(text, table, key, value string) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	want := key + " = " + tomlQuote(value)
	start, end := -1, len(lines)
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "[") {
			continue
		}
		name, ok := tomlHeader(t)
		if start >= 0 {
			end = i
			break
		}
		if ok && name == table {
			start = i
		}
	}
	if start < 0 {
		// The table's quoted key must not appear elsewhere: an inline
		// table or dotted keys define it already.
		if q := table[strings.IndexByte(table, '"'):]; strings.Contains(text, q) || strings.Contains(text, "'"+q[1:len(q)-1]+"'") {
			return "", fmt.Errorf("[%s] is defined in a form ckpt does not edit; add `%s` to it by hand", table, want)
		}
		var b strings.Builder
		b.WriteString(text)
		if text != "" && !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
		if text != "" {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[%s]\n%s\n", table, want)
		return b.String(), nil
	}
	for i := start + 1; i < end; i++ {
		k, _, ok := strings.Cut(lines[i], "=")
		if ok && strings.TrimSpace(k) == key {
			if strings.TrimSpace(lines[i]) == want {
				return text, nil
			}
			lines[i] = want + "\n"
			return strings.Join(lines, ""), nil
		}
	}
	// Insert after the table's last non-blank line.
	at := end
	for at > start+1 && strings.TrimSpace(lines[at-1]) == "" {
		at--
	}
	if at > 0 && !strings.HasSuffix(lines[at-1], "\n") {
		lines[at-1] += "\n"
	}
	lines = append(lines[:at], append([]string{want + "\n"}, lines[at:]...)...)
	return strings.Join(lines, ""), nil
}
