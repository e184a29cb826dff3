package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// peek reads name in the project whatever its mode, giving it its mode
// back, as a person would look at a file they shut.
func (p permProject) peek(t *testing.T, name string) string {
	t.Helper()
	full := filepath.Join(p.root, name)
	m := p.mode(t, name)
	if err := os.Chmod(full, m|0o400); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(full, m)
	return readText(t, p.root, name)
}

// noUnreadNote fails the test when a note of files opened to be read is
// still in the store.
func (p permProject) noUnreadNote(t *testing.T) {
	t.Helper()
	if _, err := os.Lstat(filepath.Join(p.root, ".osfoundry/checkpoints/shut-files")); !os.IsNotExist(err) {
		t.Errorf("the shut-files note is still there: %v", err)
	}
}

// A file its owner cannot read, which the command edited and then shut
// (chmod 000): the sweep opens it to keep what the command left, the
// rewind opens it to keep that for the undo and puts the bytes and mode
// before back, and the undo gives back the command's bytes and mode 000.
// Before, the sweep could not read it and the rewind failed on it
// (exit 3: "cannot be read (permission denied)"), leaving it shut.
func TestOwnFileShutByCommandRewound(t *testing.T) {
	p := folderTurnProject(t, "echo new > d/f && chmod 000 d/f")
	if r := p.run(t, "rewind", "1", "--yes"); r.Code != 0 {
		t.Fatalf("rewind\n%s", r)
	}
	if m, f := p.mode(t, "d/f"), p.peek(t, "d/f"); m != 0o644 || f != "old\n" {
		t.Errorf("d/f is %v holding %q after the rewind, want 0644 holding \"old\\n\"", m, f)
	}
	if r := p.run(t, "undo", "--yes"); r.Code != 0 {
		t.Fatalf("undo\n%s", r)
	}
	if m, f := p.mode(t, "d/f"), p.peek(t, "d/f"); m != 0 || f != "new\n" {
		t.Errorf("d/f is %v holding %q after the undo, want 0000 holding \"new\\n\"", m, f)
	}
	p.noUnreadNote(t)
}

// A file of mode 000 before the first sweep, owned by the user: a command
// that opens it, rewrites it and shuts it again, and an agent's capture
// and seal of it, are each rewound to its bytes before, its mode 000
// kept. Before, the sweep and the capture could not read it: the command
// was recorded as not kept (the rewind failed, exit 3), and the capture
// failed (exit 1).
func TestOwnShutFileEditedRewound(t *testing.T) {
	p := newPermProject(t)
	writeTexts(t, p.root, map[string]string{"f": "old\n", "n.txt": "n\n"})
	if err := os.Chmod(filepath.Join(p.root, "f"), 0); err != nil {
		t.Fatal(err)
	}
	p.own(t)
	if r := p.run(t, "exec", "--turn", "0", "--", "true"); r.Code != 0 {
		t.Fatalf("first sweep\n%s", r)
	}
	if r := p.run(t, "exec", "--turn", "1", "--", "sh", "-c", "chmod 600 f && echo new > f && chmod 000 f"); r.Code != 0 {
		t.Fatalf("exec\n%s", r)
	}
	if r := p.run(t, "rewind", "1", "--yes"); r.Code != 0 {
		t.Fatalf("rewind of the command\n%s", r)
	}
	if m, f := p.mode(t, "f"), p.peek(t, "f"); m != 0 || f != "old\n" {
		t.Errorf("f is %v holding %q after the rewind of the command, want 0000 holding \"old\\n\"", m, f)
	}
	if r := p.run(t, "capture", "--turn", "2", "f"); r.Code != 0 {
		t.Fatalf("capture\n%s", r)
	}
	if err := os.Chmod(filepath.Join(p.root, "f"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeTexts(t, p.root, map[string]string{"f": "agent\n"})
	if err := os.Chmod(filepath.Join(p.root, "f"), 0); err != nil {
		t.Fatal(err)
	}
	if r := p.run(t, "seal", "--turn", "2", "f"); r.Code != 0 {
		t.Fatalf("seal\n%s", r)
	}
	if r := p.run(t, "rewind", "2", "--yes"); r.Code != 0 {
		t.Fatalf("rewind of the agent's write\n%s", r)
	}
	if m, f := p.mode(t, "f"), p.peek(t, "f"); m != 0 || f != "old\n" {
		t.Errorf("f is %v holding %q after the rewind of the agent's write, want 0000 holding \"old\\n\"", m, f)
	}
	p.noUnreadNote(t)
}

// A sweep killed while it holds a shut file open to read it (after the
// note, after giving it read permission, after opening it): the next
// command gives the file its mode back and drops the note. Any earlier
// kill leaves the file as the command left it.
func TestCrashWhileShutFileIsOpen(t *testing.T) {
	kills := 0
	for k := 1; ; k++ {
		if k > 10 {
			t.Fatalf("the sweep still killed at open-unread:%d", k)
		}
		p := newPermProject(t)
		writeTexts(t, p.root, map[string]string{"f": "old\n"})
		p.own(t)
		if r := p.run(t, "exec", "--turn", "0", "--", "true"); r.Code != 0 {
			t.Fatalf("first sweep\n%s", r)
		}
		r := p.runWith(t, []string{"CKPT_FAILPOINT=open-unread:" + strconv.Itoa(k)}, "exec", "--turn", "1", "--", "sh", "-c", "echo new > f && chmod 000 f")
		if !r.Killed {
			if k == 1 {
				t.Fatalf("open-unread:1: want a kill\n%s", r)
			}
			break
		}
		kills++
		if lr := p.run(t, "log"); lr.Code != 0 {
			t.Fatalf("open-unread:%d: log after the kill\n%s", k, lr)
		}
		if m := p.mode(t, "f"); m != 0 {
			t.Errorf("open-unread:%d: f is %v after the kill and `ckpt log`, want 0000", k, m)
		}
		p.noUnreadNote(t)
	}
	if kills < 3 {
		t.Errorf("the sweep was killed %d times, want at every one of the 3 steps", kills)
	}
}

// leftOpenRow is an entry of doctor --json's "left_open".
type leftOpenRow struct {
	Path      string `json:"path"`
	Kind      string `json:"kind"`
	Mode      string `json:"mode"`
	Op        string `json:"op"`
	Tries     int    `json:"tries"`
	TriesLeft int    `json:"tries_left"`
	Fix       string `json:"fix"`
}

// wantLeftOpenJSON wants every agent's object of doctor --json (r) to
// have "left_open" with every key, holding want.
func wantLeftOpenJSON(t *testing.T, r ckptRun, want ...leftOpenRow) {
	t.Helper()
	var ds []map[string]json.RawMessage
	decodeJSON(t, r, &ds)
	if len(ds) == 0 {
		t.Fatalf("doctor --json lists no agent\n%s", r)
	}
	for _, d := range ds {
		var raw []map[string]json.RawMessage
		if err := json.Unmarshal(d["left_open"], &raw); err != nil || raw == nil {
			t.Fatalf("doctor --json object %s: left_open %s: %v", d["agent"], d["left_open"], err)
		}
		var got []leftOpenRow
		json.Unmarshal(d["left_open"], &got)
		if !slices.Equal(got, want) {
			t.Errorf("doctor --json object %s: left_open %+v, want %+v", d["agent"], got, want)
		}
		for _, e := range raw {
			for _, k := range []string{"path", "kind", "mode", "op", "tries", "tries_left", "fix"} {
				if _, ok := e[k]; !ok {
					t.Errorf("doctor --json: left_open entry %s lacks %q", e["path"], k)
				}
			}
		}
	}
}

// doctor names what ckpt opened to its owner and could not give its mode
// back yet, a folder and a file, with the mode each gets back and what to
// do, and doctor --json lists them in every agent's object ("left_open");
// and, as the first command after a ckpt was killed holding a file open,
// doctor says it gave that file its mode back. Before, it said nothing of
// either, and doctor --json had no such list.
func TestDoctorListsLeftOpen(t *testing.T) {
	fail := []string{"CKPT_FAILPOINT=chmod-back"}
	p := folderTurnProject(t, "echo new > d/f && echo n2 > n.txt && chmod 000 n.txt")
	if err := os.Chmod(filepath.Join(p.root, "d"), 0o555); err != nil {
		t.Fatal(err)
	}
	if r := p.runWith(t, fail, "rewind", "1", "--yes"); r.Code != 0 {
		t.Fatalf("rewind\n%s", r)
	}
	r := p.runWith(t, fail, "doctor")
	wantSubstrings(t, "doctor", r.Stdout,
		"the folder d was opened to its owner by op-1 and is still open: it gets its mode 555 back (2 commands could not give it back; 6 more will try)",
		"chmod 555 "+filepath.Join(p.root, "d"))
	fix := "make it changeable again (an immutable flag, say) and run any ckpt command, which gives it back, or give it its mode yourself: chmod "
	wantLeftOpenJSON(t, p.runWith(t, fail, "doctor", "--json"),
		leftOpenRow{Path: "d", Kind: "dir", Mode: "555", Op: "op-1", Tries: 3, TriesLeft: 5, Fix: fix + "555 " + filepath.Join(p.root, "d")})
	if r := p.run(t, "doctor"); strings.Contains(r.Stdout, "still open") {
		t.Errorf("doctor once d has its mode back still lists it:\n%s", r.Stdout)
	}
	wantLeftOpenJSON(t, p.run(t, "doctor", "--json"))
	if m := p.mode(t, "d"); m != 0o555 {
		t.Errorf("d is %v after doctor, want 0555", m)
	}

	q := newPermProject(t)
	writeTexts(t, q.root, map[string]string{"f": "old\n"})
	q.own(t)
	q.run(t, "exec", "--turn", "0", "--", "true")
	if r := q.runWith(t, fail, "exec", "--turn", "1", "--", "sh", "-c", "echo new > f && chmod 000 f"); r.Code != 0 {
		t.Fatalf("exec\n%s", r)
	}
	r = q.runWith(t, fail, "doctor")
	wantSubstrings(t, "doctor", r.Stdout, "the file f was opened to its owner and is still open: it gets its mode 000 back", "chmod 000 "+filepath.Join(q.root, "f"))
	wantLeftOpenJSON(t, q.runWith(t, fail, "doctor", "--json"),
		leftOpenRow{Path: "f", Kind: "file", Mode: "000", Tries: 3, TriesLeft: 5, Fix: fix + "000 " + filepath.Join(q.root, "f")})

	c := newPermProject(t)
	writeTexts(t, c.root, map[string]string{"f": "old\n"})
	c.own(t)
	c.run(t, "exec", "--turn", "0", "--", "true")
	if r := c.runWith(t, []string{"CKPT_FAILPOINT=open-unread:2"}, "exec", "--turn", "1", "--", "sh", "-c", "echo new > f && chmod 000 f"); !r.Killed {
		t.Fatalf("exec: want a kill holding f open\n%s", r)
	}
	r = c.run(t, "doctor")
	wantSubstrings(t, "doctor after the kill", r.Stdout, "store: gave back the modes of the files ckpt had opened to read them (f 000)")
	if m := c.mode(t, "f"); m != 0 {
		t.Errorf("f is %v after doctor, want 0000", m)
	}
}

// A setuid file its owner cannot read (mode 4100), which the command
// wrote: the sweep opens it to keep its bytes and gives it back its
// whole mode, setuid too. Before, it came back as 0100, its setuid bit
// gone.
func TestOwnShutSetuidFileKeepsItsBits(t *testing.T) {
	p := folderTurnProject(t, "echo new > d/f && chmod 4100 d/f")
	fi, err := os.Lstat(filepath.Join(p.root, "d/f"))
	if err != nil {
		t.Fatal(err)
	}
	if want := os.ModeSetuid | 0o100; fi.Mode() != want {
		t.Errorf("d/f is %v after the command's sweep, want %v", fi.Mode(), want)
	}
	p.noUnreadNote(t)
}

// Two files their owner cannot read, the first of which cannot be given
// its mode back: reading the second keeps the first in the note, so a
// later command still gives it back. Before, the second file's note took
// the first one's place, and the first stayed open for good.
func TestUnreadNoteKeepsFileNotGivenBack(t *testing.T) {
	fail := []string{"CKPT_FAILPOINT=chmod-back"}
	p := newPermProject(t)
	writeTexts(t, p.root, map[string]string{"a": "a\n", "b": "b\n"})
	p.own(t)
	p.run(t, "exec", "--turn", "0", "--", "true")
	if r := p.runWith(t, fail, "exec", "--turn", "1", "--", "sh", "-c", "echo a2 > a && chmod 000 a"); r.Code != 0 {
		t.Fatalf("exec a\n%s", r)
	}
	if r := p.runWith(t, fail, "exec", "--turn", "1", "--", "sh", "-c", "echo b2 > b && chmod 000 b"); r.Code != 0 {
		t.Fatalf("exec b\n%s", r)
	}
	if r := p.run(t, "log"); r.Code != 0 { // a command that can give modes back
		t.Fatalf("log\n%s", r)
	}
	for _, name := range []string{"a", "b"} {
		if m := p.mode(t, name); m != 0 {
			t.Errorf("%s is %v, want 0000", name, m)
		}
	}
	p.noUnreadNote(t)
}

// A note of files left open written by a newer ckpt, which this one
// keeps and cannot read: doctor --json gives
// left_open as null, not as [] (which says nothing is open), and says why
// on stderr, naming the note.
func TestDoctorJSONLeftOpenUnknown(t *testing.T) {
	root := t.TempDir()
	ckptOK(t, root, "install", "claude", "--no-first-copy")
	ckptOK(t, root, "exec", "--turn", "1", "--", "true")
	note := filepath.Join(root, ".osfoundry/checkpoints/shut-files")
	if err := os.WriteFile(note, []byte(`{"v": 99, "files": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := ckptDo(t, ckptCall{Root: root, Env: []string{"HOME=" + t.TempDir()}}, "doctor", "--json")
	var ds []map[string]json.RawMessage
	decodeJSON(t, r, &ds)
	if len(ds) == 0 {
		t.Fatalf("doctor --json lists no agent\n%s", r)
	}
	for _, d := range ds {
		if got := string(d["left_open"]); got != "null" {
			t.Errorf("doctor --json object %s: left_open %s, want null", d["agent"], got)
		}
	}
	if !strings.Contains(r.Stderr, "shut-files") {
		t.Errorf("doctor --json: stderr does not name the note\n%s", r)
	}
}
