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
