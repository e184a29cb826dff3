package cli

import (
	"strings"
	"testing"
)

// A rewind every path of which failed changed nothing: its report does
// not offer an undo, and there is nothing to undo.
func TestRewindAllFailedOffersNoUndo(t *testing.T) {
	p := newTestProject(t, map[string]string{"big.txt": "more than ten bytes\n"})
	ckptOK(t, p.root, "capture", "--turn", "1", "--max-blob", "10", "big.txt")
	writeTexts(t, p.root, map[string]string{"big.txt": "changed by the agent\n"})
	ckptOK(t, p.root, "seal", "--turn", "1", "big.txt")
	r := ckptCode(t, p.root, 3, "rewind", "1", "--yes")
	if strings.Contains(r.Stdout, "undo") {
		t.Errorf("a rewind that changed nothing offers an undo:\n%s", r.Stdout)
	}
	wantSubstrings(t, "rewind", r.Stdout, "big.txt", "not kept")
	ckptCode(t, p.root, 1, "undo", "--yes")
}

// A plan's note of the paths already as they should be agrees with its count.
func TestPlanKeepNoteCount(t *testing.T) {
	p := newTestProject(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	p.turn(t, "1", "", []string{"a.txt", "b.txt"}, func() {
		writeTexts(t, p.root, map[string]string{"a.txt": "A\n"})
	})
	r := ckptCode(t, p.root, 4, "rewind", "1", "--dry-run")
	wantSubstrings(t, "rewind --dry-run", r.Stdout, "1 path already as it should be: left alone")
}

// A first install of ckpt's Codex hooks beside the user's own says nothing
// of hooks that changed: there were none of ckpt's before. A later install
// for another binary does say so.
func TestInstallCodexBesideUserHooks(t *testing.T) {
	root := t.TempDir()
	home := t.TempDir()
	writeTexts(t, root, map[string]string{".codex/hooks.json": `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}`})
	call := ckptCall{Root: root, Env: []string{"CODEX_HOME=" + home, "HOME=" + home}}
	r := ckptDo(t, call, "install", "codex")
	if r.Code != 0 || strings.Contains(r.Stdout, "hooks changed") {
		t.Errorf("first install beside the user's hooks:\n%s", r)
	}
	// The same hooks for a binary elsewhere: those changed.
	data := readText(t, root, ".codex/hooks.json")
	writeTexts(t, root, map[string]string{".codex/hooks.json": strings.ReplaceAll(data, ckptBin, "/elsewhere/ckpt")})
	r = ckptDo(t, call, "install", "codex")
	if r.Code != 0 || !strings.Contains(r.Stdout, "hooks changed (they ran /elsewhere/ckpt, now "+ckptBin+")") {
		t.Errorf("install over hooks for another binary:\n%s", r)
	}
	if got := readText(t, root, ".codex/hooks.json"); got != data {
		t.Errorf("install over hooks for another binary did not put them back as they were:\n%s", got)
	}
}
