// Package keymap holds ckpt's key bindings: one KeyMap, its defaults, and the
// help it reports. The terminal UI disables bindings that cannot act in its
// current state, so help shows only what a key press would do.
package keymap

import "charm.land/bubbles/v2/key"

// KeyMap is every binding of the terminal UI.
type KeyMap struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding

	NextPane key.Binding
	PrevPane key.Binding
	Open     key.Binding
	Back     key.Binding

	NextHunk   key.Binding
	PrevHunk   key.Binding
	DiffMode   key.Binding
	SideBySide key.Binding
	Left       key.Binding // scroll the diff sideways
	Right      key.Binding
	Zoom       key.Binding // the diff takes the whole screen
	Search     key.Binding // find text in the diff
	Editor     key.Binding // open $EDITOR at the hunk
	Wrap       key.Binding // wrap long lines in the diff
	LineStart  key.Binding // scroll the diff back to the lines' start
	LineEnd    key.Binding // scroll the diff to the longest line's end

	Rewind  key.Binding
	Revert  key.Binding // take one turn out, keeping what came after it
	Undo    key.Binding
	Redo    key.Binding
	Confirm key.Binding
	Force   key.Binding
	Keep    key.Binding // preview: keep this file as it is now
	KeepAll key.Binding
	// DiffFocus moves a preview's focus between its files and its diff;
	// KeepHunk, in the diff, keeps the hunk under the cursor as it is now.
	DiffFocus key.Binding
	KeepHunk  key.Binding
	// GitIndex: the rewind also puts git's index back.
	GitIndex key.Binding

	Follow  key.Binding // follow the newest turn
	Dismiss key.Binding // hide the error notice (the log keeps the errors)
	Errors  key.Binding // the logged errors, newest first
	CutTurn key.Binding // ckpt ui --watch: the next change opens a new turn

	Conversation key.Binding // the turn's prompt, reply and tool calls beside its files
	JumpTurn     key.Binding // go to a turn by its id
	CopyPath     key.Binding // copy the file's path to the clipboard (OSC 52)
	HideEmpty    key.Binding // hide the turns that changed no file
	Mouse        key.Binding // turn mouse capture off and on, to select text

	Filter key.Binding
	Help   key.Binding
	Quit   key.Binding

	// Accept takes what was typed (a filter, a search, a turn id); the
	// footer shows it while one is typed, with esc to cancel.
	Accept key.Binding
}

// Default returns the bindings CONTRACT.md lists, plus the diff view's extras.
func Default() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("k", "up"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("j", "down"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u", "b"), key.WithHelp("pgup/b", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d", "space"), key.WithHelp("pgdn/space", "page down")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g/home", "top")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G/end", "bottom")),

		NextPane: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next pane")),
		PrevPane: key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous pane")),
		Open:     key.NewBinding(key.WithKeys("enter", "l", "right"), key.WithHelp("enter/l", "open")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),

		NextHunk:   key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next hunk")),
		PrevHunk:   key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous hunk")),
		DiffMode:   key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "kept→disk / agent's write / since agent")),
		SideBySide: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "side by side")),
		Left:       key.NewBinding(key.WithKeys("h", "left"), key.WithHelp("←/h", "scroll left")),
		Right:      key.NewBinding(key.WithKeys("l", "right"), key.WithHelp("→/l", "scroll right")),
		Zoom:       key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "diff full screen")),
		Search:     key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search the diff (n/N)")),
		Editor:     key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit at the changed line")),
		Wrap:       key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "wrap long lines")),
		LineStart:  key.NewBinding(key.WithKeys("0"), key.WithHelp("0", "lines' start")),
		LineEnd:    key.NewBinding(key.WithKeys("$"), key.WithHelp("$", "longest line's end")),

		Rewind:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "rewind")),
		Revert:    key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "revert")),
		Undo:      key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo")),
		Redo:      key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "redo")),
		Confirm:   key.NewBinding(key.WithKeys("y", "enter"), key.WithHelp("y/enter", "apply")),
		Force:     key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "force")),
		Keep:      key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "keep as is")),
		KeepAll:   key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "keep all")),
		DiffFocus: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "files ⇄ diff")),
		KeepHunk:  key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "keep hunk as is")),
		GitIndex:  key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "git's index too")),

		Follow:  key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "follow newest")),
		Dismiss: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "hide the notice")),
		Errors:  key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "logged errors")),
		CutTurn: key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "cut a turn (ui --watch)")),

		Conversation: key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "conversation")),
		JumpTurn:     key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "go to turn")),
		CopyPath:     key.NewBinding(key.WithKeys("Y"), key.WithHelp("Y", "copy path")),
		HideEmpty:    key.NewBinding(key.WithKeys("H"), key.WithHelp("H", "hide turns with no files")),
		Mouse:        key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "mouse on/off (select text)")),

		Filter: key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Help:   key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Accept: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "done typing (filter, search, :)")),
		Quit:   key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the one-line help: the keys a newcomer needs first.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.NextPane, k.Open, k.Rewind, k.Revert, k.Undo, k.Redo, k.Errors, k.Dismiss, k.Conversation, k.Follow, k.Back, k.Filter, k.Search, k.Help, k.Quit}
}

// DiffHelp is the one-line help while the diff has the focus: its own
// keys first (hunks, which versions it compares, the room), then the
// operations.
func (k KeyMap) DiffHelp() []key.Binding {
	mode := k.DiffMode
	mode.SetHelp("v", "which versions") // the full help words all three
	return []key.Binding{k.NextHunk, mode, k.Zoom, k.NextPane, k.Rewind, k.Revert, k.Undo, k.Redo, k.Search, k.SideBySide,
		k.Errors, k.Dismiss, k.Conversation, k.Follow, k.Back, k.Help, k.Quit}
}

// PreviewHelp is the one-line help of the rewind preview.
func (k KeyMap) PreviewHelp() []key.Binding {
	return []key.Binding{k.Confirm, k.Keep, k.KeepHunk, k.DiffFocus, k.KeepAll, k.GitIndex, k.Up, k.Down, k.DiffMode, k.Left, k.Right, k.Force, k.Rewind, k.Revert, k.Back}
}

// PreviewGroup is the index of FullHelp's group of a preview's own keys:
// they share keys with the panes' (space, f), so the help lists them
// under their own heading.
const PreviewGroup = 3

// FullHelpTitles names FullHelp's groups, in its order.
func (k KeyMap) FullHelpTitles() []string {
	return []string{"Move", "The diff", "Rewind and undo", "In a preview", "Views"}
}

// FullHelp is every binding, grouped: moving, the diff, operations, the rest.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.NextPane, k.PrevPane, k.Open, k.Back},
		{k.NextHunk, k.PrevHunk, k.DiffMode, k.SideBySide, k.Left, k.Right, k.LineStart, k.LineEnd, k.Wrap, k.Zoom, k.Search, k.Editor, k.CopyPath},
		{k.Rewind, k.Revert, k.Undo, k.Redo},
		{k.Confirm, k.Keep, k.DiffFocus, k.KeepHunk, k.KeepAll, k.GitIndex, k.Force},
		{k.Conversation, k.JumpTurn, k.HideEmpty, k.Follow, k.Errors, k.Dismiss, k.CutTurn, k.Filter, k.Accept, k.Mouse, k.Help, k.Quit},
	}
}
