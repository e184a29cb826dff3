package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCodexHookHash(t *testing.T) {
	thirty := 30
	// The identity Codex hashes, spelled out: sorted keys, no spaces.
	h := codexHookHash("PreToolUse", "^apply_patch$", "/bin/ckpt hook codex", &thirty, false, nil)
	if !strings.HasPrefix(h, "sha256:") || len(h) != len("sha256:")+64 {
		t.Fatalf("hash %q", h)
	}
	if got := codexHookHash("PreToolUse", "^apply_patch$", "/usr/bin/ckpt hook codex", &thirty, false, nil); got == h {
		t.Error("a moved binary keeps the same hash")
	}
	sixty := 60
	if got := codexHookHash("PreToolUse", "^apply_patch$", "/bin/ckpt hook codex", &sixty, false, nil); got == h {
		t.Error("a changed timeout keeps the same hash")
	}
	// UserPromptSubmit takes no matcher: one written is not hashed.
	if codexHookHash("UserPromptSubmit", "x", "c", nil, false, nil) != codexHookHash("UserPromptSubmit", "", "c", nil, false, nil) {
		t.Error("UserPromptSubmit's matcher changes its hash")
	}
	// No timeout is 600 seconds.
	six := 600
	if codexHookHash("Stop", "", "c", nil, false, nil) != codexHookHash("Stop", "", "c", &six, false, nil) {
		t.Error("a missing timeout is not 600")
	}
	if codexEventLabel("UserPromptSubmit") != "user_prompt_submit" || codexEventLabel("PreToolUse") != "pre_tool_use" {
		t.Error(codexEventLabel("UserPromptSubmit"))
	}
}

func TestTomlSet(t *testing.T) {
	cases := []struct {
		name, text, table, want string
		err                     bool
	}{
		{"empty file", "", `projects."/p"`, "[projects.\"/p\"]\ntrust_level = \"trusted\"\n", false},
		{"appended", "model = \"x\"", `projects."/p"`, "model = \"x\"\n\n[projects.\"/p\"]\ntrust_level = \"trusted\"\n", false},
		{"replaced", "[projects.\"/p\"]\ntrust_level = \"untrusted\"\n\n[other]\na = 1\n", `projects."/p"`, "[projects.\"/p\"]\ntrust_level = \"trusted\"\n\n[other]\na = 1\n", false},
		{"added to its table", "[projects.'/p']\nx = 1\n\n[other]\n", `projects."/p"`, "[projects.'/p']\nx = 1\ntrust_level = \"trusted\"\n\n[other]\n", false},
		{"unchanged", "[projects.\"/p\"]\ntrust_level = \"trusted\"\n", `projects."/p"`, "[projects.\"/p\"]\ntrust_level = \"trusted\"\n", false},
		{"inline table refused", "projects = { \"/p\" = { trust_level = \"untrusted\" } }\n", `projects."/p"`, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := tomlSet(c.text, c.table, "trust_level", "trusted")
			if (err != nil) != c.err {
				t.Fatalf("err %v", err)
			}
			if !c.err && got != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// TestApproveCodex: --approve records what ReadCodexTrust then reads as
// approved; a re-install with a moved binary un-approves.
func TestApproveCodex(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	if _, err := Install("codex", InstallOptions{Root: root, Exe: "/opt/ckpt"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("# mine\nmodel = \"m\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, hooks, err := ApproveCodex(root, home, nil, false)
	if err != nil || !c.Written || len(hooks) < 3 {
		t.Fatalf("approve: %v, written %v, %d hooks", err, c.Written, len(hooks))
	}
	if !strings.HasPrefix(string(c.New), "# mine\nmodel = \"m\"\n") {
		t.Errorf("the user's lines were not kept:\n%s", c.New)
	}
	keys := []string{}
	for _, h := range hooks {
		keys = append(keys, h.Key)
	}
	tr, err := ReadCodexTrust(home, root, keys)
	if err != nil || !tr.ProjectTrusted {
		t.Fatalf("trust: %v %+v", err, tr)
	}
	for _, h := range hooks {
		if tr.Approved[h.Key] != h.Hash {
			t.Errorf("%s not approved", h.Key)
		}
	}
	c2, _, err := ApproveCodex(root, home, nil, false)
	if err != nil || c2.Changed() {
		t.Errorf("a second approve changes the file: %v", err)
	}
	// Moved binary: reinstall, and the hashes no longer match.
	if _, err := Uninstall("codex", InstallOptions{Root: root, Exe: "/opt/ckpt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Install("codex", InstallOptions{Root: root, Exe: "/usr/local/bin/ckpt"}); err != nil {
		t.Fatal(err)
	}
	moved, _ := CodexHooks(root)
	for _, h := range moved {
		if tr.Approved[h.Key] == h.Hash {
			t.Errorf("%s still approved after the binary moved", h.Key)
		}
	}
}

// TestCodexKeysResolveSymlinks: Codex names the project by the path the
// system reports for its working directory, symlinks resolved.
func TestCodexKeysResolveSymlinks(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Install("codex", InstallOptions{Root: link, Exe: "/opt/ckpt"}); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	c, hooks, err := ApproveCodex(link, home, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	resolved, _ := filepath.EvalSymlinks(real)
	for _, h := range hooks {
		if !strings.HasPrefix(h.Key, resolved+"/.codex/hooks.json:") {
			t.Errorf("key %s does not name the resolved path %s", h.Key, resolved)
		}
	}
	if !strings.Contains(string(c.New), "[projects."+tomlQuote(resolved)+"]") {
		t.Errorf("trust not recorded for %s:\n%s", resolved, c.New)
	}
}

// TestReinstallCodexApproval: hooks made to run a moved binary keep their
// places (the same approval keys) but not their approval; approving again
// approves them all.
func TestReinstallCodexApproval(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	if _, err := Install("codex", InstallOptions{Root: root, Exe: "/tmp/a/ckpt"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ApproveCodex(root, home, nil, false); err != nil {
		t.Fatal(err)
	}
	before, _ := CodexHooks(root)
	if _, err := Install("codex", InstallOptions{Root: root, Exe: "/tmp/b/ckpt"}); err != nil {
		t.Fatal(err)
	}
	after, _ := CodexHooks(root)
	if len(after) != len(before) {
		t.Fatalf("%d hooks after the second install, %d before", len(after), len(before))
	}
	keys := make([]string, len(after))
	for i, h := range after {
		keys[i] = h.Key
		if h.Key != before[i].Key || h.Command != "/tmp/b/ckpt hook codex" {
			t.Errorf("hook %d: %s %q, was %s", i, h.Key, h.Command, before[i].Key)
		}
	}
	tr, err := ReadCodexTrust(home, root, keys)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range after {
		if tr.Approved[h.Key] == h.Hash {
			t.Errorf("%s still approved after the binary moved", h.Key)
		}
	}
	c, hooks, err := ApproveCodex(root, home, nil, false)
	if err != nil || !c.Written || len(hooks) != len(after) {
		t.Fatalf("approve again: %v, written %v, %d hooks", err, c != nil && c.Written, len(hooks))
	}
	if tr, _ = ReadCodexTrust(home, root, keys); len(tr.Approved) != len(after) {
		t.Fatalf("approved %d of %d", len(tr.Approved), len(after))
	}
	for _, h := range after {
		if tr.Approved[h.Key] != h.Hash {
			t.Errorf("%s not approved", h.Key)
		}
	}
}
