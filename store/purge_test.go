package store

import (
	"path/filepath"
	"reflect"
	"testing"
)

// A Store kept open (as the UI keeps one) while another process purges a
// path sees what a fresh one sees: the path purged in every turn and in
// the steps of the operations that touched it, so a rewind, undo or redo
// it plans reports it as purged and never reaches for a deleted blob.
func TestPurgeSeenByOpenStore(t *testing.T) {
	root, ui := secretProject(t, "KEY=1\n")
	for _, id := range []TurnID{"1", "2", "3"} {
		if _, err := ui.Write(id, TurnMeta{}, filepath.Join(root, "secret.env"), []byte("KEY="+string(id)+"0\n")); err != nil {
			t.Fatal(err)
		}
		if _, err := ui.Write(id, TurnMeta{}, filepath.Join(root, "a.txt"), []byte("a"+string(id))); err != nil {
			t.Fatal(err)
		}
	}
	rewind(t, ui, "3")
	look := func(s *Store) (any, []Step, []Step) {
		t.Helper()
		es, err := s.Log(true)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]File{}
		for _, e := range es {
			if files[e.ID], err = s.Files(e.ID, true); err != nil {
				t.Fatal(err)
			}
		}
		rw, err := s.PlanRewind("1")
		if err != nil {
			t.Fatal(err)
		}
		un, err := s.PlanUndo(false)
		if err != nil {
			t.Fatal(err)
		}
		return []any{es, files}, rw.Steps, un.Steps
	}
	look(ui) // the open Store has read everything once
	other, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Purge([]string{"secret.env"}); err != nil {
		t.Fatal(err)
	}
	other.Close()
	fresh, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	wantView, wantRewind, wantUndo := look(fresh)
	gotView, gotRewind, gotUndo := look(ui)
	if !reflect.DeepEqual(gotView, wantView) {
		t.Errorf("the open Store's log and files after the purge:\n got %+v\nwant %+v", gotView, wantView)
	}
	if !reflect.DeepEqual(gotRewind, wantRewind) {
		t.Errorf("the open Store's rewind plan after the purge:\n got %+v\nwant %+v", gotRewind, wantRewind)
	}
	if !reflect.DeepEqual(gotUndo, wantUndo) {
		t.Errorf("the open Store's undo plan after the purge:\n got %+v\nwant %+v", gotUndo, wantUndo)
	}
	for _, st := range append(gotRewind, gotUndo...) {
		if st.Path == "secret.env" && st.Reason != "" && st.Do != ActFail {
			t.Errorf("secret.env: %+v", st)
		}
	}
	res := rewind(t, ui, "1")
	for _, f := range res.Failed {
		if f.Path == "secret.env" && f.Reason != "not restored: "+PurgedReason && f.Reason != PurgedReason {
			t.Errorf("the rewind from the open Store fails secret.env for another reason: %q", f.Reason)
		}
	}
	if got := rd(t, root, "a.txt"); got != "a0" {
		t.Errorf("a.txt after the rewind: %q", got)
	}
}

// An undo whose only failures are purged paths is not retried: their
// bytes are gone for good, so the next undo goes on down the stack.
func TestPurgedUndoGoesOn(t *testing.T) {
	root, s := secretProject(t, "KEY=0\n")
	s.Write("1", TurnMeta{}, filepath.Join(root, "a.txt"), []byte("a1"))
	s.Write("2", TurnMeta{}, filepath.Join(root, "secret.env"), []byte("KEY=2\n"))
	s.Write("2", TurnMeta{}, filepath.Join(root, "a.txt"), []byte("a2"))
	rewind(t, s, "2")
	rewind(t, s, "1")
	if _, err := s.Purge([]string{"secret.env"}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"a1", "a2"} {
		p, err := s.PlanUndo(false)
		if err != nil {
			t.Fatalf("undo %d: %v", i+1, err)
		}
		if p.Retry != "" {
			t.Fatalf("undo %d retries %s, whose only failure is purged", i+1, p.Retry)
		}
		if _, err := s.Apply(p, nil); err != nil {
			t.Fatal(err)
		}
		if got := rd(t, root, "a.txt"); got != want {
			t.Fatalf("after undo %d a.txt holds %q, want %q", i+1, got, want)
		}
	}
	if got := rd(t, root, "secret.env"); got != "KEY=0\n" {
		t.Errorf("secret.env, purged, was changed: %q", got)
	}
	if _, err := s.PlanUndo(false); err == nil {
		t.Errorf("a third undo: want nothing to undo")
	}
}

// A purge in the middle of a turn of shell commands: the next command's
// sweep takes what stands at the purged path as a hand edit, and records
// no new copy of it in the turn.
func TestPurgeMidShellTurn(t *testing.T) {
	root, s := secretProject(t, "KEY=0\n")
	sweep := func(cmd string, edit func()) {
		t.Helper()
		if _, err := s.SweepBefore("1", TurnMeta{}, cmd); err != nil {
			t.Fatal(err)
		}
		edit()
		if _, err := s.SweepAfter("1", TurnMeta{}, cmd); err != nil {
			t.Fatal(err)
		}
	}
	sweep("first", func() { wr(t, root, "secret.env", "KEY=1\n") })
	if _, err := s.Purge([]string{"secret.env"}); err != nil {
		t.Fatal(err)
	}
	sweep("second", func() { wr(t, root, "a.txt", "a1") })
	files, err := s.Files("1", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == "secret.env" && (f.Status != StatusPurged || f.Post == nil || !f.Post.Purged()) {
			t.Errorf("secret.env after the next command: status %s, post %+v: a copy was kept again", f.Status, f.Post)
		}
	}
}

// secretProject is a store over a folder holding secret.env and a.txt
// ("a0").
func secretProject(t *testing.T, secret string) (string, *Store) {
	t.Helper()
	root := t.TempDir()
	wr(t, root, "secret.env", secret)
	wr(t, root, "a.txt", "a0")
	return root, openStore(t, root)
}
