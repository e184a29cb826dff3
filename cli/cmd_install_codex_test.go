package cli

import (
	"strings"
	"testing"
)

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
