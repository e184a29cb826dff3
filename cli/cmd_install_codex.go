package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/ckpt-dev/ckpt/agent/setup"
)

// codexApproval finishes `ckpt install codex`: Codex runs a project's hooks
// only once the project is trusted and each hook approved in its /hooks
// screen, and skips them silently until then. Without --approve it says
// so; with it, it shows the lines it records in $CODEX_HOME/config.toml
// and records them (under --dry-run it only shows them).
func codexApproval(root, exe string, c *setup.Change, approve, dry bool) error {
	home := setup.CodexHome(os.Getenv)
	if approve {
		change, hooks, err := setup.ApproveCodex(root, home, c.New, true)
		if err != nil {
			return fmt.Errorf("install codex: %w", err)
		}
		if !change.Changed() {
			fmt.Printf("ckpt: %s already trusts the project and approves ckpt's %d codex hooks; nothing to do\n", change.Path, len(hooks))
			if dry {
				return exitWith(exitPlanShown)
			}
			return nil
		}
		fmt.Printf("ckpt: recording in %s the project's trust and the approval of ckpt's %d codex hooks, as Codex's /hooks screen does:\n", change.Path, len(hooks))
		// The diff names the file by its absolute path, not as a/ b/ sides.
		d := change.Diff("config.toml")
		if _, body, ok := strings.Cut(d, "\n+++ b/config.toml\n"); ok {
			d = "--- " + change.Path + "\n+++ " + change.Path + "\n" + body
		}
		fmt.Print(d)
		if dry {
			return exitWith(exitPlanShown)
		}
		if _, _, err := setup.ApproveCodex(root, home, nil, false); err != nil {
			return fmt.Errorf("install codex: %w", err)
		}
		fmt.Println("ckpt: approved; Codex will run ckpt's hooks in this project")
		return nil
	}
	if dry {
		return exitWith(exitPlanShown)
	}
	hooks, err := setup.CodexHooks(root)
	if err != nil {
		return fmt.Errorf("install codex: %w", err)
	}
	keys := make([]string, len(hooks))
	for i, h := range hooks {
		keys[i] = h.Key
	}
	trust, err := setup.ReadCodexTrust(home, root, keys)
	if err != nil {
		return fmt.Errorf("install codex: %w", err)
	}
	approved := 0
	for _, h := range hooks {
		if trust.Approved[h.Key] == h.Hash {
			approved++
		}
	}
	if trust.ProjectTrusted && approved == len(hooks) {
		fmt.Printf("ckpt: the project is trusted and ckpt's %d codex hooks are approved in %s\n", len(hooks), trust.Config)
		return nil
	}
	switch {
	case len(c.Removed) > 0:
		fmt.Printf("ckpt: the hooks changed (they ran %s, now %s), so Codex no longer treats them as approved.\n", strings.Join(c.Removed, ", "), exe)
	case c.Changed() && len(setup.HookExes("codex", c.Old, exe)) > 0:
		fmt.Println("ckpt: the hooks changed, so Codex no longer treats them as approved.")
	}
	fmt.Printf(`ckpt: Codex skips these hooks silently, and nothing is captured, until two steps are done (both recorded in %s):
  1. trust the project%s
  2. approve each of ckpt's %d hooks: start codex in the project, type /hooks, and approve them (%d approved now)
  or run `+"`ckpt install codex --approve`"+`, which shows what it records for both, then records it.
`, trust.Config, doneIf(trust.ProjectTrusted, ": Codex asks when it first opens the folder"), len(hooks), approved)
	return nil
}

func doneIf(done bool, how string) string {
	if done {
		return " (done)"
	}
	return how
}
