package ui

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// A plan answer meant for one dialog never lands in another: r on turn
// 2, esc, r on turn 1, and turn 2's plan arrives late.
func TestLatePlanStaysInItsDialog(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 40)
	press(t, m, kp("j"))
	_, late := m.Update(kp("r")) // turn 2's plan, not run yet
	press(t, m, kp("esc"), kp("j"))
	_, cmd := m.Update(kp("r")) // turn 1
	_, _ = m.Update(late())
	if m.dlg == nil || m.dlg.plan != nil {
		t.Fatalf("turn 2's plan landed in turn 1's dialog: %+v", m.dlg.plan)
	}
	drive(t, m, cmd)
	if m.dlg.plan == nil || m.dlg.plan.Target != "1" {
		t.Fatal("turn 1's own plan did not land")
	}
	mustContain(t, plain(m), "Rewind to before turn 1", "Undoes 3 turns: 1, 2, 3")
}

// A turn that arrives while the preview is open is shown before
// anything can be applied, and y never applies a plan not on screen.
func TestTurnArrivingMidPreview(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 40)
	press(t, m, keys("r")...) // turn 3, the newest
	mustContain(t, plain(m), "Undoes 1 turn: 3")

	f.write("4", "a turn the preview never showed", t0.Add(3*time.Minute), "late.txt", []byte("late\n"))
	_, replan := m.Update(storeChangedMsg{gen: m.watchGen})
	press(t, m, kp("y")) // before the new plan is in
	if f.applyN != 0 {
		t.Fatal("y applied while the plan was being made again")
	}
	drive(t, m, replan)
	s := plain(m)
	mustContain(t, s, "Undoes 2 turns: 3, 4", "late.txt", "The plan changed while it was open")

	press(t, m, kp("y"))
	if f.applyN != 1 {
		t.Fatal("y did not apply the new plan once it was on screen")
	}
	if _, ok := f.disk["late.txt"]; ok {
		t.Fatal("the shown plan deletes late.txt; it is still there")
	}
	if !strings.Contains(m.status, "rewound 2 turns · 3 files") {
		t.Fatalf("status %q mixes plans", m.status)
	}
}

// A plan that went out of date between the last look and y is refused
// by the store; the preview shows the new plan and nothing is applied.
func TestOutdatedPlanIsRefused(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 40)
	press(t, m, kp("r"))
	f.setDisk("src/config.js", []byte("changed under the preview\n"))
	press(t, m, kp("y"))
	if f.applyN != 0 {
		t.Fatal("an outdated plan was applied")
	}
	if m.dlg == nil || m.dlg.plan == nil || !m.dlg.changed {
		t.Fatal("the preview does not show the new plan")
	}
	mustContain(t, plain(m), "The plan changed while it was open")
}

// space keeps a file as it is now: the rest is rewound, the kept file
// untouched.
func TestKeepAFile(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 40)
	press(t, m, keys("j", "r")...) // turn 2: legacy.js, src/config.js, server.js
	press(t, m, keys("j", "space")...)
	mustContain(t, plain(m), "k keep", "src/config.js", "1 kept as it is now")
	if strings.Contains(plain(m), "The plan changed") {
		t.Fatal("a keep the user asked for is told as a change from outside")
	}
	press(t, m, kp("y"))
	if f.applyN != 1 {
		t.Fatal("nothing applied")
	}
	got := strings.Join(f.applied[0], ",")
	if strings.Contains(got, "src/config.js") {
		t.Fatalf("the kept file was in the applied plan: %s", got)
	}
	if _, ok := f.disk["src/config.js"]; !ok {
		t.Fatal("the kept file was deleted")
	}
	if _, ok := f.disk["legacy.js"]; !ok {
		t.Fatal("legacy.js was not restored")
	}
}

// a keeps every file, then none; with every file kept, y applies nothing.
func TestKeepAll(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 40)
	press(t, m, keys("j", "r", "a")...)
	press(t, m, kp("y"))
	if f.applyN != 0 || !strings.Contains(m.status, "every file is kept") {
		t.Fatalf("applied %d with every file kept; status %q", f.applyN, m.status)
	}
	press(t, m, keys("a", "y")...)
	if f.applyN != 1 || len(f.applied[0]) != 3 {
		t.Fatalf("a twice should keep none: applied %v", f.applied)
	}
}

// The preview shows the diff of the file under the cursor, disk now →
// after the rewind, and j moves it.
func TestPreviewDiffFollowsCursor(t *testing.T) {
	m := testModel(t, sample(), 120, 40)
	press(t, m, keys("j", "r")...)
	mustContain(t, plain(m), "legacy.js · disk now → after the rewind", "+ // old helpers")
	press(t, m, kp("j"))
	mustContain(t, plain(m), "src/config.js · disk now → after the rewind", "- module.exports")
	press(t, m, kp("j"), kp("v"))
	mustContain(t, plain(m), "changes since the agent", "+ // Serve the shop.")
}

// A path a rewind could not restore shows as failed with its reason, not
// as changed since the agent, and r on the turn retries just it.
func TestFailedPathAndRetry(t *testing.T) {
	f := sample()
	f.failing["legacy.js"] = "permission denied"
	m := testModel(t, f, 120, 40)
	press(t, m, keys("j", "r", "y")...)
	mustContain(t, plain(m), "could not be put back", "legacy.js — permission denied", "r retry")
	press(t, m, kp("esc"))

	// The files of turn 2 (now rewound): legacy.js failed, with why.
	for m.selected().ID != "2" {
		press(t, m, kp("j"))
	}
	s := plain(m)
	mustContain(t, s, "X legacy.js", "failed: permission denied", "✗1 failed")
	if strings.Contains(s, "! legacy.js") {
		t.Fatal("the failed path shows as changed since the agent")
	}

	delete(f.failing, "legacy.js")
	press(t, m, kp("r"))
	if m.dlg == nil || m.dlg.plan == nil {
		t.Fatalf("r on a turn with a failed path offers no retry (status %q)", m.status)
	}
	mustContain(t, plain(m), "Retry the rewind to before turn 2", "Retries 1 file")
	press(t, m, kp("y"))
	if f.applyN != 2 || strings.Join(f.applied[1], ",") != "legacy.js" {
		t.Fatalf("the retry applied %v", f.applied)
	}
	if _, ok := f.disk["legacy.js"]; !ok {
		t.Fatal("the retry did not restore legacy.js")
	}
}

// The "u to undo" hint sits on the operation u would undo, on the real
// store: after r y, u y, ctrl+r y, u y nothing is left to undo.
func TestUndoHintFollowsTheStack(t *testing.T) {
	root := t.TempDir()
	s := openReal(t, root)
	if _, err := s.Write("1", store.TurnMeta{Label: "a"}, filepath.Join(root, "a.txt"), []byte("one\n")); err != nil {
		t.Fatal(err)
	}
	m := realModel(t, s, 120, 30)
	hint := func() string {
		for _, l := range strings.Split(plain(m), "\n") {
			if strings.Contains(l, "u to undo") && (strings.Contains(l, "↶") || strings.Contains(l, "↷")) {
				return strings.Fields(l)[0]
			}
		}
		return ""
	}
	steps := []struct {
		keys []string
		want string
	}{
		{[]string{"r", "y"}, "op-1"},
		{[]string{"u", "y"}, ""},
		{[]string{"ctrl+r", "y"}, "op-3"},
		{[]string{"u", "y"}, ""},
	}
	for _, st := range steps {
		press(t, m, keys(st.keys...)...)
		if got := strings.TrimPrefix(hint(), "›"); got != st.want {
			t.Fatalf("after %v the hint is on %q, want %q:\n%s", st.keys, got, st.want, plain(m))
		}
		press(t, m, kp("G")) // back to the turn
	}
}

// A store that cannot keep a file says so, and the plan on screen stays.
func TestKeepRefusedKeepsThePlan(t *testing.T) {
	f := sample()
	m := testModel(t, f, 120, 40)
	press(t, m, keys("j", "r")...)
	f.planErr = errors.New("cannot keep files here")
	press(t, m, kp("space"))
	if m.dlg == nil || m.dlg.plan == nil || len(m.dlg.keptPaths()) != 0 || !m.dlg.ready() {
		t.Fatal("a refused keep lost the plan on screen")
	}
	if !strings.Contains(m.status, "cannot keep") {
		t.Fatalf("status %q", m.status)
	}
}
