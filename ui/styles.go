package ui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/ckpt-dev/ckpt/diffview"
)

// styles is every style the UI draws with. Colour only adds to what the
// text already says (a letter and a word for each status, a mark for each
// state), so the screen reads the same under NO_COLOR.
type styles struct {
	title, titleFocus lipgloss.Style
	cursor, cursorDim lipgloss.Style
	plain             lipgloss.Style
	dim               lipgloss.Style
	badge             lipgloss.Style
	op                lipgloss.Style
	sep               lipgloss.Style
	status, errText   lipgloss.Style
	dialog            lipgloss.Style
	dialogTitle       lipgloss.Style
	warn              lipgloss.Style
	good              lipgloss.Style
	fail              lipgloss.Style
	kept              lipgloss.Style
	helpKey           lipgloss.Style
	letter            map[string]lipgloss.Style
	diff              diffview.Styles
	help              help.Styles
}

func defaultStyles() styles {
	c := lipgloss.Color
	s := styles{
		title:       lipgloss.NewStyle().Faint(true),
		titleFocus:  lipgloss.NewStyle().Bold(true).Reverse(true),
		cursor:      lipgloss.NewStyle().Reverse(true),
		cursorDim:   lipgloss.NewStyle().Bold(true),
		plain:       lipgloss.NewStyle(),
		dim:         lipgloss.NewStyle().Faint(true),
		badge:       lipgloss.NewStyle().Foreground(c("3")).Bold(true),
		op:          lipgloss.NewStyle().Foreground(c("5")),
		sep:         lipgloss.NewStyle().Faint(true),
		status:      lipgloss.NewStyle(),
		errText:     lipgloss.NewStyle().Foreground(c("1")).Bold(true),
		dialog:      lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).Padding(0, 1),
		dialogTitle: lipgloss.NewStyle().Bold(true),
		warn:        lipgloss.NewStyle().Foreground(c("3")),
		good:        lipgloss.NewStyle().Foreground(c("2")),
		fail:        lipgloss.NewStyle().Foreground(c("1")).Bold(true),
		kept:        lipgloss.NewStyle().Foreground(c("6")),
		diff:        diffview.DefaultStyles(),
		help:        helpStyles(),
		helpKey:     lipgloss.NewStyle().Bold(true),
	}
	s.letter = map[string]lipgloss.Style{
		"A": lipgloss.NewStyle().Foreground(c("2")),
		"D": lipgloss.NewStyle().Foreground(c("1")),
		"M": lipgloss.NewStyle().Foreground(c("4")),
		"T": lipgloss.NewStyle().Foreground(c("4")),
		"!": lipgloss.NewStyle().Foreground(c("3")).Bold(true),
		"S": lipgloss.NewStyle().Foreground(c("5")),
		"?": lipgloss.NewStyle().Foreground(c("1")).Bold(true),
		"X": lipgloss.NewStyle().Foreground(c("1")).Bold(true),
	}
	return s
}

// helpStyles draw keys bold and words in the terminal's own colour, so
// help reads on light and dark backgrounds alike.
func helpStyles() help.Styles {
	plain, faint := lipgloss.NewStyle(), lipgloss.NewStyle().Faint(true)
	bold := lipgloss.NewStyle().Bold(true)
	return help.Styles{
		Ellipsis:       faint,
		ShortKey:       bold,
		ShortDesc:      plain,
		ShortSeparator: faint,
		FullKey:        bold,
		FullDesc:       plain,
		FullSeparator:  faint,
	}
}
