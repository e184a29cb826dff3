package keymap

import (
	"reflect"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func TestDefaultMatchesSpecKeys(t *testing.T) {
	k := Default()
	cases := []struct {
		name string
		msg  tea.KeyPressMsg
		b    key.Binding
	}{
		{"j down", tea.KeyPressMsg{Code: 'j', Text: "j"}, k.Down},
		{"arrow down", tea.KeyPressMsg{Code: tea.KeyDown}, k.Down},
		{"k up", tea.KeyPressMsg{Code: 'k', Text: "k"}, k.Up},
		{"tab", tea.KeyPressMsg{Code: tea.KeyTab}, k.NextPane},
		{"enter opens", tea.KeyPressMsg{Code: tea.KeyEnter}, k.Open},
		{"enter confirms", tea.KeyPressMsg{Code: tea.KeyEnter}, k.Confirm},
		{"y confirms", tea.KeyPressMsg{Code: 'y', Text: "y"}, k.Confirm},
		{"n", tea.KeyPressMsg{Code: 'n', Text: "n"}, k.NextHunk},
		{"N", tea.KeyPressMsg{Code: 'n', ShiftedCode: 'N', Text: "N", Mod: tea.ModShift}, k.PrevHunk},
		{"r", tea.KeyPressMsg{Code: 'r', Text: "r"}, k.Rewind},
		{"u", tea.KeyPressMsg{Code: 'u', Text: "u"}, k.Undo},
		{"ctrl+r", tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl}, k.Redo},
		{"slash", tea.KeyPressMsg{Code: '/', Text: "/"}, k.Filter},
		{"esc", tea.KeyPressMsg{Code: tea.KeyEscape}, k.Back},
		{"?", tea.KeyPressMsg{Code: '?', Text: "?"}, k.Help},
		{"q", tea.KeyPressMsg{Code: 'q', Text: "q"}, k.Quit},
		{"ctrl+c", tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}, k.Quit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !key.Matches(c.msg, c.b) {
				t.Errorf("%q does not match %v", c.msg.String(), c.b.Keys())
			}
		})
	}
}

func TestEscNeverQuits(t *testing.T) {
	k := Default()
	if key.Matches(tea.KeyPressMsg{Code: tea.KeyEscape}, k.Quit) {
		t.Fatal("esc quits")
	}
}

func TestDisabledBindingsLeaveHelp(t *testing.T) {
	k := Default()
	k.Undo.SetEnabled(false)
	for _, g := range k.FullHelp() {
		for _, b := range g {
			if b.Help().Desc == k.Undo.Help().Desc && b.Enabled() {
				t.Fatal("disabled undo still enabled in FullHelp")
			}
		}
	}
	if key.Matches(tea.KeyPressMsg{Code: 'u', Text: "u"}, k.Undo) {
		t.Fatal("disabled binding still matches")
	}
}

func TestFullHelpCoversShortHelp(t *testing.T) {
	k := Default()
	all := map[string]bool{}
	for _, g := range k.FullHelp() {
		for _, b := range g {
			all[b.Help().Key] = true
		}
	}
	for _, b := range k.ShortHelp() {
		if !all[b.Help().Key] {
			t.Errorf("%s in short help but not in full help", b.Help().Key)
		}
	}
}

// TestFullHelpListsEveryKey: ? shows every binding of the map.
func TestFullHelpListsEveryKey(t *testing.T) {
	k := Default()
	listed := map[string]bool{}
	for _, g := range k.FullHelp() {
		for _, b := range g {
			listed[b.Help().Key+" "+b.Help().Desc] = true
		}
	}
	v := reflect.ValueOf(k)
	for i := 0; i < v.NumField(); i++ {
		b := v.Field(i).Interface().(key.Binding)
		if !listed[b.Help().Key+" "+b.Help().Desc] {
			t.Errorf("%s (%s) is not in the full help", v.Type().Field(i).Name, b.Help().Key)
		}
	}
}
