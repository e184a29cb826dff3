package ui

import (
	"context"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
)

// RunOptions tunes Run.
type RunOptions struct {
	// NoColor draws without colour (bold, faint and reverse remain), as
	// NO_COLOR asks.
	NoColor bool
	// Editor is the command e runs ($EDITOR); "" means vi.
	Editor string
	// Root and Open are for a project with no store yet (st nil): see
	// Options.
	Root string
	Open func() (Store, error)
	// Installed lists the agents whose ckpt hooks the project holds.
	Installed []string
	// CutTurn, when set, cuts a turn for the ckpt watch the UI runs
	// (ckpt ui --watch): the key T calls it.
	CutTurn func() error
	// StartWatcher starts the background watcher beside the UI: see
	// Options.
	StartWatcher func(st Store) bool
}

// Run shows the UI on the terminal until the user quits, then leaves the
// terminal as it found it. st is nil for a project with no store yet; the
// UI then waits for one through ro.Open.
func Run(ctx context.Context, st Store, ro RunOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The UI schedules nothing while idle (the store's watcher wakes it),
	// but Bubble Tea's renderer ticks at its frame rate all the same: at
	// its default 60 frames a second that is about 0.9% of a core doing
	// nothing, at 30 about 0.6%, and 30 still draws a key's effect within
	// a frame no one can tell from one at 60.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(30)}
	if ro.NoColor {
		opts = append(opts, tea.WithColorProfile(colorprofile.ASCII))
	}
	m := New(st, Options{Context: ctx, Editor: orDefault(ro.Editor, "vi"), Root: ro.Root, Open: ro.Open, Installed: ro.Installed, CutTurn: ro.CutTurn, StartWatcher: ro.StartWatcher})
	_, err := tea.NewProgram(m, opts...).Run()
	cancel()
	m.Close()
	if err == tea.ErrProgramKilled && ctx.Err() != nil {
		return nil
	}
	return err
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
