package ui

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ckpt-dev/ckpt/store"
)

// bigFake is a store of 10,000 turns and 100,000 entries.
func bigFake() *fakeStore {
	f := newFake()
	img := f.keep([]byte("x\n"))
	for i := 0; i < 10000; i++ {
		t := &fakeTurn{entry: store.Entry{ID: fmt.Sprint(i + 1), Kind: store.KindAgent,
			Label: fmt.Sprintf("turn %d: refactor the module and update its tests", i+1),
			At:    t0.Add(time.Duration(i) * time.Second), State: store.StateActive, Files: 10,
			Source: &store.Source{Agent: "claude", Session: "s"}}}
		for j := 0; j < 10; j++ {
			post := img
			t.files = append(t.files, store.File{Path: fmt.Sprintf("pkg%d/file%d.go", i%100, j), Pre: img, Post: &post})
		}
		f.turns = append(f.turns, t)
	}
	return f
}

func firstFrame(f *fakeStore) (*Model, string) {
	m := New(f, Options{Now: fixedNow, Poll: -1, NoWatch: true})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	return m, m.View().Content
}

// BenchmarkFirstFrame is New (which reads the log without disk status),
// the first size and the first View on 10,000 turns / 100,000 entries.
func BenchmarkFirstFrame(b *testing.B) {
	f := bigFake()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, _ := firstFrame(f)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(m)
	b.ReportAllocs()
	for b.Loop() {
		if _, v := firstFrame(f); v == "" {
			b.Fatal("empty frame")
		}
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "model-MiB")
	b.ReportMetric(float64(after.HeapAlloc)/(1<<20), "heap-MiB")
}

// BenchmarkView is one View() at 200x60 on that store, with files loaded
// and a diff on screen.
func BenchmarkView(b *testing.B) {
	f := bigFake()
	m := testModel(b, f, 200, 60)
	press(b, m, kp("j"))
	b.ReportAllocs()
	for b.Loop() {
		if m.View().Content == "" {
			b.Fatal("empty view")
		}
	}
}

// BenchmarkDiff5MB is the diff command on a 5 MB file with scattered
// edits, with a cold cache each time.
func BenchmarkDiff5MB(b *testing.B) {
	f := newFake()
	var x, y bytes.Buffer
	for i := 0; x.Len() < 5<<20; i++ {
		line := fmt.Sprintf("\tvalue%07d := compute(%d, \"some text to make the line longer\")\n", i, i)
		x.WriteString(line)
		if i%997 == 0 {
			y.WriteString("\t// changed\n")
		} else {
			y.WriteString(line)
		}
	}
	f.disk["big.go"] = x.Bytes()
	f.write("1", "big", t0, "big.go", y.Bytes())
	file := f.turns[0].files[0]
	b.SetBytes(int64(x.Len()))
	b.ReportAllocs()
	for b.Loop() {
		msg := loadDiff(f, newDiffCache(4), diffReq{seq: 1, file: file, mode: modeDisk, max: 8 << 20})()
		if d := msg.(diffLoadedMsg).d; d == nil || d.Added == 0 {
			b.Fatalf("no diff: %+v", msg)
		}
	}
}

// rewoundFake is a store whose oldest turn, rewound before the other
// turns came, has many files: each of its rows says how the rewind left
// it, and the rewind is at the far end of a long log.
func rewoundFake(turns, files int) *fakeStore {
	f := newFake()
	img := f.keep([]byte("x\n"))
	first := &fakeTurn{entry: store.Entry{ID: "1", Kind: store.KindAgent, Label: "a wide change", At: t0,
		State: store.StateRewound, Files: files}}
	for j := 0; j < files; j++ {
		post := f.keep([]byte(fmt.Sprintf("y%d\n", j)))
		path := fmt.Sprintf("big/file%04d.go", j)
		first.files = append(first.files, store.File{Path: path, Pre: img, Post: &post})
		f.disk[path] = []byte("x\n") // back as before the turn

	}
	f.turns = append(f.turns, first)
	f.ops = append(f.ops, &fakeOp{entry: store.Entry{ID: "op-1", Kind: store.KindRewind, Target: "1", Turns: []string{"1"},
		State: store.StateActive, At: t0.Add(time.Second / 2), Files: files}})
	for i := 1; i < turns; i++ {
		post := img
		f.turns = append(f.turns, &fakeTurn{entry: store.Entry{ID: fmt.Sprint(i + 1), Kind: store.KindAgent,
			Label: fmt.Sprintf("turn %d", i+1), At: t0.Add(time.Duration(i) * time.Second), State: store.StateActive, Files: 1},
			files: []store.File{{Path: fmt.Sprintf("f%d.go", i), Pre: img, Post: &post}}})
	}
	return f
}

// BenchmarkViewRewoundTurn is one View() at 200x60 with the files pane on
// a rewound turn of 2,000 files, the oldest of 20,000 turns.
func BenchmarkViewRewoundTurn(b *testing.B) {
	m := testModel(b, rewoundFake(20000, 2000), 200, 60)
	press(b, m, kp("G"))
	if e := m.selected(); e == nil || e.ID != "1" {
		b.Fatalf("the cursor is on %+v, want turn 1", e)
	}
	b.ReportAllocs()
	for b.Loop() {
		if m.View().Content == "" {
			b.Fatal("empty view")
		}
	}
}

// BenchmarkReload is what the UI goroutine does with one reload of the
// log of 10,000 turns (read and indexed in the command): the badges kept
// until fresh ones come, while the status line speaks of an operation.
func BenchmarkReload(b *testing.B) {
	f := bigFake()
	m := testModel(b, f, 200, 60)
	msg := loadLog(f, false, m.hand)()
	m.setStatus("rewound 3 files — u to undo")
	m.statusFor.op = "op-1"
	b.ReportAllocs()
	for b.Loop() {
		m.Update(msg)
		if m.status == "" {
			b.Fatal("the status went")
		}
	}
}
