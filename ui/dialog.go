package ui

import (
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"ckpt/diffview"
	"ckpt/store"
)

// dialog is the preview of a rewind, undo or redo, then its progress.
type dialog struct {
	kind     store.Kind
	target   string // the turn to rewind to (rewind only)
	label    string
	loading  bool
	plan     *store.Plan
	err      error
	canForce bool
	applying bool
	ch       <-chan tea.Msg
	done     int
	total    int
	top      int // scroll of the body
	result   *store.Result

	// The edits a rewind would throw away: for each file changed since the
	// agent wrote it, the agent's bytes → disk now (v shows them).
	showSince    bool
	sinceLoading bool
	since        []sinceDiff
}

// sinceDiff is one hand-edited path's changes since the agent.
type sinceDiff struct {
	path string
	d    *diffview.Diff
	note string
	err  error
}

func (d *dialog) verb() string {
	switch d.kind {
	case store.KindUndo:
		return "undo"
	case store.KindRedo:
		return "redo"
	}
	return "rewind"
}

// lines is the dialog's body, plain text (escaped) with a style per line.
type styledLine struct {
	text  string
	style int // 0 plain, 1 dim, 2 warn, 3 fail, 4 good, 5 title
	diff  *diffview.Diff
	row   int // with diff: the row of it this line draws
}

func (d *dialog) title() string {
	switch d.kind {
	case store.KindUndo:
		if d.plan != nil && d.plan.Target != "" {
			return "Undo " + diffview.Escape(d.plan.Target)
		}
		return "Undo the latest rewind"
	case store.KindRedo:
		if d.plan != nil && d.plan.Target != "" {
			return "Redo " + diffview.Escape(d.plan.Target)
		}
		return "Redo"
	}
	t := "Rewind to before turn " + diffview.Escape(d.target)
	if d.label != "" {
		t += " — " + diffview.Escape(d.label)
	}
	return t
}

func (d *dialog) body() []styledLine {
	var out []styledLine
	add := func(style int, format string, args ...any) {
		out = append(out, styledLine{text: fmt.Sprintf(format, args...), style: style})
	}
	switch {
	case d.loading:
		add(1, "planning…")
		return out
	case d.err != nil:
		add(3, "%s", diffview.Escape(d.err.Error()))
		if d.canForce {
			add(0, "")
			add(0, "A newer turn wrote some of these paths; %s would overwrite its work.", d.verb())
			add(0, "Press f to %s anyway, esc to cancel.", d.verb())
		}
		return out
	case d.result != nil:
		r := d.result
		add(4, "%s done: %d restored, %d deleted.", d.verb(), len(r.Restored), len(r.Deleted))
		if len(r.Failed) > 0 {
			add(3, "%d could not be put back:", len(r.Failed))
			for _, f := range r.Failed {
				add(3, "  %s — %s", diffview.Escape(f.Path), diffview.Escape(f.Reason))
			}
		}
		return out
	}
	p := d.plan
	ids := make([]string, len(p.Turns))
	for i, t := range p.Turns {
		ids[i] = diffview.Escape(t)
	}
	switch d.kind {
	case store.KindUndo:
		add(0, "Brings back %s: %s", plural(len(ids), "turn"), strings.Join(ids, ", "))
	default:
		add(0, "Undoes %s: %s", plural(len(ids), "turn"), strings.Join(ids, ", "))
	}
	var restore, del, keep, fail, hand int
	for _, s := range p.Steps {
		switch s.Do {
		case store.ActRestore:
			restore++
		case store.ActDelete:
			del++
		case store.ActKeep:
			keep++
		case store.ActFail:
			fail++
		}
		if s.HandEdited {
			hand++
		}
	}
	var counts []string
	for _, c := range []struct {
		n    int
		what string
	}{{restore, "to restore"}, {del, "to delete"}, {keep, "already right"}, {fail, "cannot be restored"}} {
		if c.n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	add(1, "%s: %s", plural(len(p.Steps), "file"), strings.Join(counts, ", "))
	if hand > 0 {
		add(2, "%s changed since the agent wrote %s (marked !): the current bytes are kept first, and undo brings them back. v shows those changes.",
			plural(hand, "file"), them(hand))
	}
	for _, w := range p.Warnings {
		add(2, "⚠ %s", diffview.Escape(w))
	}
	add(0, "")
	for _, s := range p.Steps {
		path := diffview.Escape(s.Path)
		mark := " "
		if s.HandEdited {
			mark = "!"
		}
		switch s.Do {
		case store.ActRestore:
			add(0, "%s restore  %s", mark, path)
		case store.ActDelete:
			add(0, "%s delete   %s", mark, path)
		case store.ActKeep:
			add(1, "%s keep     %s (already as it was)", mark, path)
		case store.ActFail:
			add(3, "%s cannot restore  %s — %s", mark, path, diffview.Escape(orUnknown(s.Reason)))
		default:
			add(0, "%s %-8s %s", mark, diffview.Escape(string(s.Do)), path)
		}
		if s.HandEdited {
			add(2, "    changed since the agent wrote it: kept first, undo brings it back")
		}
	}
	if d.showSince {
		add(0, "")
		if d.sinceLoading {
			add(1, "reading the changes since the agent…")
		}
		for _, sd := range d.since {
			add(5, "Changes since the agent in %s (the agent's bytes → disk now):", diffview.Escape(sd.path))
			switch {
			case sd.err != nil:
				add(3, "%s", diffview.Escape(sd.err.Error()))
			case sd.note != "":
				add(1, "%s", diffview.Escape(sd.note))
			case sd.d != nil:
				for i := 0; i < sd.d.Len(diffview.Unified); i++ {
					out = append(out, styledLine{diff: sd.d, row: i})
				}
			}
		}
	}
	return out
}

// handEdited lists the plan's paths changed since the agent wrote them.
func (d *dialog) handEdited() []string {
	if d.plan == nil {
		return nil
	}
	var out []string
	for _, s := range d.plan.Steps {
		if s.HandEdited {
			out = append(out, s.Path)
		}
	}
	return out
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// resultStatus is the status line after an operation.
func resultStatus(p *store.Plan, r *store.Result) string {
	files := len(r.Restored) + len(r.Deleted)
	var s string
	switch p.Kind {
	case store.KindUndo:
		s = fmt.Sprintf("undid %s · %s — ctrl+r to redo", diffview.Escape(p.Target), plural(files, "file"))
	case store.KindRedo:
		s = fmt.Sprintf("redid %s · %s — u to undo", diffview.Escape(p.Target), plural(files, "file"))
	default:
		s = fmt.Sprintf("rewound %s · %s — u to undo", plural(len(p.Turns), "turn"), plural(files, "file"))
	}
	if len(r.Failed) > 0 {
		s += fmt.Sprintf(" · %d could not be restored", len(r.Failed))
	}
	return s
}

// planError turns a planning error into a status line, or "" when the
// dialog should show it.
func planError(kind store.Kind, err error) string {
	switch {
	case errors.Is(err, store.ErrNothingToUndo):
		return "nothing to undo"
	case errors.Is(err, store.ErrNothingToRedo):
		return "nothing to redo"
	case errors.Is(err, store.ErrRewound):
		return "that turn is already rewound — u undoes the rewind"
	}
	return ""
}
