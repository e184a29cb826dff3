package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// TestKindChangeInFiles: a folder a turn replaced by a file is marked T
// in the files pane and says "folder → file", on the disk's side while
// the turn stands and as what the agent did once it is rewound; a file
// whose bytes alone changed stays M.
func TestKindChangeInFiles(t *testing.T) {
	f := newFake()
	post := f.keep([]byte("file\n"))
	pre := f.keep([]byte("a\n"))
	post2 := f.keep([]byte("b\n"))
	f.write("1", "make d a file", t0, "d", nil) // placeholder, replaced below
	f.turns[0].files = []store.File{
		{Path: "d", Pre: store.Image{Kind: store.ImageDir, Mode: 0o755}, Post: &post},
		{Path: "m.txt", Pre: pre, Post: &post2},
	}
	f.turns[0].entry.Files = 2
	f.disk["d"], f.disk["m.txt"] = []byte("file\n"), []byte("b\n")
	m := testModel(t, f, 120, 30)
	row := func(path string) string {
		t.Helper()
		for _, l := range strings.Split(plain(m), "\n") {
			if len(l) > 3 && strings.HasPrefix(strings.TrimLeft(l, " ›")[1:], " "+path+" ") {
				return l // a row of the files pane: cursor, letter, path
			}
		}
		t.Fatalf("no row for %s:\n%s", path, plain(m))
		return ""
	}
	if r := row("d"); !strings.Contains(r, "T d") || !strings.Contains(r, "modified (folder → file)") {
		t.Fatalf("the folder made a file reads %q", r)
	}
	if r := row("m.txt"); !strings.Contains(r, "M m.txt") || strings.Contains(r, "→") {
		t.Fatalf("a file whose bytes changed reads %q", r)
	}
	l, w, _ := agentChange(&f.turns[0].files[0], "rewound")
	if l != "T" || w != "the agent: modified (folder → file) · rewound" {
		t.Fatalf("the agent's change of kind, rewound: %q %q", l, w)
	}
}

// TestUndoOfRetryPreview: the preview of an undo of a retry names it
// ("the retry of op-1") and says what it does: the paths it retried go
// back as op-1 left them, and op-1 stays; its redo retries them again.
func TestUndoOfRetryPreview(t *testing.T) {
	f := sample()
	f.ops = append(f.ops,
		&fakeOp{entry: store.Entry{ID: "op-1", Kind: store.KindRewind, Target: "3", Turns: []string{"3"}, State: store.StateActive, At: t0.Add(time.Hour), Files: 2},
			before: map[string][]byte{"server.js": []byte("a\n")}},
		&fakeOp{entry: store.Entry{ID: "op-2", Kind: store.KindRewind, Target: "3", Turns: []string{"3"}, Retry: "op-1", State: store.StateActive, At: t0.Add(2 * time.Hour), Files: 1},
			before: map[string][]byte{"server.js": []byte("b\n")}, after: map[string][]byte{"server.js": []byte("c\n")}})
	m := testModel(t, f, 120, 30)
	press(t, m, kp("u"))
	s := plain(m)
	mustContain(t, s, "Undo op-2, the retry of op-1", "Puts the 1 file it retried back as op-1 left them (op-1 stays in effect)")
	if strings.Contains(s, "Brings back") {
		t.Fatalf("the undo of a retry claims to bring turns back:\n%s", s)
	}
	press(t, m, kp("esc"))
	f.ops[1].entry.State = store.StateUndone
	drive(t, m, m.refresh(true))
	press(t, m, kp("ctrl+r"))
	mustContain(t, plain(m), "Redo op-2, the retry of op-1", "Retries again 1 file op-1 could not put back")
}
