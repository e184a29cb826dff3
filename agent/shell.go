package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// Shell tools say nothing of the files they write, and neither do MCP
// tools: around each call the hook sweeps the tree (store.SweepBefore and
// store.SweepAfter), so what the command changed lands in the turn with
// the command beside it.
//
// A command that keeps writing after its hook returns (Claude Code's
// run_in_background, a dev server started with &) is covered until the
// agent's turn ends: the next shell call of the same turn records what it
// wrote since, and so does the agent's end-of-turn event (Claude Code and
// Codex Stop, Gemini CLI AfterAgent, opencode session.idle), which sweeps
// again when the turn ran a shell command. What it writes after that is
// treated like a hand edit: kept at the next sweep, in no turn.

// isShellTool reports whether a Claude Code or Codex tool is swept around.
func isShellTool(name string) bool {
	return name == "Bash" || strings.HasPrefix(name, "mcp__")
}

// shellCommand is what a swept call shows beside the files it changed:
// the command line, or the MCP tool's name.
func shellCommand(tool, command string) string {
	if command != "" {
		return command
	}
	return tool
}

// toolCommand reads tool_input.command when there is one.
func toolCommand(raw []byte) string {
	var in struct {
		Command any `json:"command"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &in) != nil {
		return ""
	}
	switch c := in.Command.(type) {
	case string:
		return c
	case []any:
		parts := make([]string, 0, len(c))
		for _, a := range c {
			parts = append(parts, fmt.Sprint(a))
		}
		return strings.Join(parts, " ")
	}
	return ""
}

// hookCopyBudget bounds a hook's first sweep of a tree (see
// store.CopyControl): well under the 120 s ckpt's installs give shell
// events, and under the 60 s some agents give a hook whatever the
// config says, with room for the listing before it.
// $CKPT_HOOK_COPY_BUDGET (a duration) sets another.
const hookCopyBudget = 50 * time.Second

// copyBudget is the first sweep's budget in a hook.
func copyBudget(getenv func(string) string) time.Duration {
	if d, err := time.ParseDuration(getenv("CKPT_HOOK_COPY_BUDGET")); err == nil && d > 0 {
		return d
	}
	return hookCopyBudget
}

// sweepError words a sweep's failure; a first copy that did not fit in
// the hook's time says how to take it at once.
func (h *hookCall) sweepError(when string, err error) error {
	if errors.Is(err, store.ErrCopyStopped) {
		return fmt.Errorf("hook %s: sweep %s %q: %w (`ckpt install %s --first-copy` takes it now, with a progress bar)", h.agent.name, when, h.ev.command, err, h.agent.name)
	}
	return fmt.Errorf("hook %s: sweep %s %q: %w", h.agent.name, when, h.ev.command, err)
}

// shellBefore and shellAfter are one store call each: the store opens
// the session's turn when it has none and sweeps, under its own lock.
func (h *hookCall) shellBefore() error {
	res, err := h.store.BeginCommand(h.meta(), h.noPromptLabel(), h.ev.command)
	if err != nil {
		return h.sweepError("before", err)
	}
	h.logProblems(res.Problems)
	h.startWatcher(res)
	return nil
}

func (h *hookCall) shellAfter() error {
	res, err := h.store.EndCommand(h.meta(), h.noPromptLabel(), h.ev.command)
	if err != nil {
		return h.sweepError("after", err)
	}
	if res.Fresh {
		h.log("hook %s: no baseline to compare with after %q: what it changed is not recorded (every file is kept now, so the next command is covered)", h.agent.name, h.ev.command)
	}
	h.logProblems(res.Problems)
	h.startWatcher(res)
	return nil
}

// startWatcher starts the background watcher (ckpt watch --serve) when
// none answered a sweep of a tree worth watching, by running the ckpt
// executable beside this one (ckpt-hook never links the watcher). It
// does not wait for it. $CKPT_WATCHER=always starts one for any tree,
// =off never.
func (h *hookCall) startWatcher(res *store.SweepResult) {
	if !res.WatcherWanted() {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	if filepath.Base(exe) != "ckpt" {
		exe = filepath.Join(filepath.Dir(exe), "ckpt")
		if fi, err := os.Stat(exe); err != nil || fi.IsDir() {
			return
		}
	}
	if err := h.store.StartWatcher(exe); err != nil {
		h.log("hook %s: %v", h.agent.name, err)
	}
}

// turnEnd sweeps once more when the ending turn ran a shell command: a
// command still running in the background may have written since.
func (h *hookCall) turnEnd() error {
	open, ok := h.store.SessionTurn(h.sessionKey())
	if !ok {
		return nil
	}
	turn := store.TurnID(open)
	h.saveSaid(turn)
	var err error
	if swept, cmd := h.store.SweptTurn(); swept == turn {
		h.ev.command = cmd
		err = h.shellAfter()
	}
	// None of the turn's commands runs on as the turn's own: another
	// session's sweep no longer gives it what changes (a call the user
	// refused never had its closing sweep).
	if eerr := h.store.EndTurn(turn); eerr != nil && err == nil {
		err = fmt.Errorf("hook %s: end turn %s: %w", h.agent.name, turn, eerr)
	}
	return err
}

func (h *hookCall) logProblems(ps []string) {
	for _, p := range ps {
		h.log("hook %s: sweep around %q: %s", h.agent.name, h.ev.command, p)
	}
}
