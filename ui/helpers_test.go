package ui

import (
	"bytes"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/ckpt-dev/ckpt/store"
)

var cmdType = reflect.TypeOf(tea.Cmd(nil))

// testNow is the tests' clock: three hours after the sample's first turn.
func testNow() time.Time { return t0.Add(3 * time.Hour) }

// testModel is a model on a fake store with a fixed clock and no watch
// or tick, sized w×h, with Init's commands run.
func testModel(t testing.TB, f *fakeStore, w, h int) *Model {
	t.Helper()
	m := New(f, Options{Now: testNow, Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drive(t, m, m.Init())
	return m
}

// openReal opens or creates the real store in root, closed when t ends.
func openReal(t testing.TB, root string) *store.Store {
	t.Helper()
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// realModel is a model on the real store s with no watch or tick, sized
// w×h, with Init's commands run.
func realModel(t testing.TB, s *store.Store, w, h int) *Model {
	t.Helper()
	m := New(realStore{s}, Options{Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drive(t, m, m.Init())
	return m
}

// drive runs cmd and every command its messages lead to, synchronously,
// feeding each message to Update. Batches and sequences are unpacked.
func drive(t testing.TB, m *Model, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; n++ {
		if n > 1000 {
			t.Fatal("commands do not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		if msg == nil {
			continue
		}
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == cmdType {
			// tea.BatchMsg or the sequence message: run in order.
			var inner []tea.Cmd
			for i := 0; i < v.Len(); i++ {
				inner = append(inner, v.Index(i).Interface().(tea.Cmd))
			}
			queue = append(inner, queue...)
			continue
		}
		switch msg.(type) {
		case tea.QuitMsg, tickMsg:
			continue
		}
		_, next := m.Update(msg)
		queue = append(queue, next)
	}
}

// press sends one key to Update and runs what it asks for.
func press(t testing.TB, m *Model, keys ...tea.KeyPressMsg) {
	t.Helper()
	for _, k := range keys {
		_, cmd := m.Update(k)
		drive(t, m, cmd)
	}
}

// namedKeys are the keys kp knows by name; any other string is its
// first character typed.
var namedKeys = map[string]tea.KeyPressMsg{
	"enter":     {Code: tea.KeyEnter},
	"esc":       {Code: tea.KeyEscape},
	"tab":       {Code: tea.KeyTab},
	"up":        {Code: tea.KeyUp},
	"down":      {Code: tea.KeyDown},
	"backspace": {Code: tea.KeyBackspace},
	"ctrl+r":    {Code: 'r', Mod: tea.ModCtrl},
	"ctrl+c":    {Code: 'c', Mod: tea.ModCtrl},
}

func kp(s string) tea.KeyPressMsg {
	if k, ok := namedKeys[s]; ok {
		return k
	}
	r := []rune(s)[0]
	if r >= 'A' && r <= 'Z' {
		return tea.KeyPressMsg{Code: r + 'a' - 'A', ShiftedCode: r, Text: s, Mod: tea.ModShift}
	}
	return tea.KeyPressMsg{Code: r, Text: s}
}

func keys(ss ...string) []tea.KeyPressMsg {
	out := make([]tea.KeyPressMsg, len(ss))
	for i, s := range ss {
		out[i] = kp(s)
	}
	return out
}

// screen is the view as a terminal without colour shows it.
func screen(m *Model) string {
	var b bytes.Buffer
	w := colorprofile.NewWriter(&b, nil)
	w.Profile = colorprofile.ASCII
	w.WriteString(m.View().Content)
	return b.String()
}

// fullScreen is the screen, checked to be exactly w×h: as many lines as
// rows, each as wide as the terminal.
func fullScreen(t testing.TB, m *Model, w, h int) string {
	t.Helper()
	out := screen(m)
	lines := strings.Split(out, "\n")
	if len(lines) != h {
		t.Fatalf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw != w {
			t.Fatalf("line %d is %d wide, want %d: %q", i, lw, w, l)
		}
	}
	return out
}

// plain is the view's text with every style removed.
func plain(m *Model) string {
	var b bytes.Buffer
	w := colorprofile.NewWriter(&b, nil)
	w.Profile = colorprofile.NoTTY
	w.WriteString(m.View().Content)
	return b.String()
}

func mustContain(t testing.TB, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Fatalf("screen lacks %q:\n%s", sub, s)
		}
	}
}

var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

func ansiWidth(s string) int { return ansi.StringWidth(s) }
