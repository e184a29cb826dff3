package ui

import (
	"charm.land/bubbles/v2/key"
	"github.com/charmbracelet/x/ansi"

	"github.com/ckpt-dev/ckpt/present"
)

// footer is the one-line help at the bottom: as many of bindings as fit
// in w columns, whole (never a key cut mid-word), and then, always, the
// bindings of tail (? help and q quit, or how to leave a dialog).
func (m *Model) footer(bindings, tail []key.Binding, w int) string {
	var live []key.Binding
	for _, b := range bindings {
		if b.Enabled() && !inBindings(tail, b) {
			live = append(live, b)
		}
	}
	h := m.help
	h.SetWidth(0) // the fitting is done here, whole bindings at a time
	end := h.ShortHelpView(tail)
	room := w - ansi.StringWidth(end)
	sep := h.Styles.ShortSeparator.Inline(true).Render(h.ShortSeparator)
	for n := len(live); n > 0; n-- {
		head := h.ShortHelpView(live[:n])
		if ansi.StringWidth(head)+ansi.StringWidth(sep) <= room {
			return present.Fit(head+sep+end, w)
		}
	}
	return present.Fit(end, w)
}

// inBindings reports whether b is one of bs (the same first key: the
// tail may word a binding its own way, as q/esc close).
func inBindings(bs []key.Binding, b key.Binding) bool {
	for _, x := range bs {
		if len(x.Keys()) > 0 && len(b.Keys()) > 0 && x.Keys()[0] == b.Keys()[0] {
			return true
		}
	}
	return false
}
