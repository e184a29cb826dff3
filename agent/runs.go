package agent

import (
	"fmt"
	"strings"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// Cline gives hooks no event per prompt: the user's prompt reaches no hook
// (one-shot or interactive), and TaskStart, which comes with each prompt's
// run, is fire-and-forget, so its hook may finish after the run's first
// tool call. What comes reliably is the end of each run (TaskComplete),
// long before a person types the next prompt. So the end of a run is
// written down with the time Cline sent it, and the first event Cline sent
// after it, whatever its kind, opens the task's next turn: under the
// sessions lock, so that of two such events racing only one opens it.

// runKey names the record of the session's last run end.
func (h *hookCall) runKey() string { return h.sessionKey() + "\x00run" }

// endRun records that the session's run ended at the event's time.
func (h *hookCall) endRun() error {
	if h.ev.at.IsZero() {
		return nil
	}
	if err := h.store.SetSessionTurn(h.runKey(), "ended "+h.ev.at.UTC().Format(time.RFC3339Nano)); err != nil {
		return fmt.Errorf("hook %s: record the end of the run: %w", h.agent.name, err)
	}
	return nil
}

// nextRun opens the session's next turn when the event was sent after the
// last run ended.
func (h *hookCall) nextRun() error {
	ended, ok := h.runEnded()
	if !ok || h.ev.at.IsZero() || !h.ev.at.After(ended) {
		return nil
	}
	unlock, err := h.store.LockSessions()
	if err != nil {
		return fmt.Errorf("hook %s: %w", h.agent.name, err)
	}
	defer unlock()
	if ended, ok = h.runEnded(); !ok || !h.ev.at.After(ended) {
		return nil // another event of this run opened its turn
	}
	label := fmt.Sprintf("%s task %s: the next prompt (it reaches no hook)", h.agent.name, h.ev.session)
	turn, err := h.store.NewTurn(store.TurnMeta{Label: label, Source: h.source()})
	if err != nil {
		return fmt.Errorf("hook %s: open the next run's turn: %w", h.agent.name, err)
	}
	if err := h.store.SetSessionTurn(h.sessionKey(), turn.String()); err != nil {
		return fmt.Errorf("hook %s: record turn %s for the session: %w", h.agent.name, turn, err)
	}
	if err := h.store.SetSessionTurn(h.runKey(), "running"); err != nil {
		return fmt.Errorf("hook %s: record the run: %w", h.agent.name, err)
	}
	return nil
}

// runEnded is when the session's last run ended, ok false while one runs
// (or none has ended).
func (h *hookCall) runEnded() (time.Time, bool) {
	v, ok := h.store.SessionTurn(h.runKey())
	rest, ended := strings.CutPrefix(v, "ended ")
	if !ok || !ended {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, rest)
	return t, err == nil
}
