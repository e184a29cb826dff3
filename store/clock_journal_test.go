package store

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// journalStore is genStore with its generation recorded: a load from it
// lists nothing.
func journalStore(t *testing.T) string {
	t.Helper()
	root := genStore(t)
	readGenView(t, root)
	if _, _, listed := readGenView(t, root); listed {
		t.Fatal("no generation was recorded")
	}
	return root
}

// loadAgrees checks that a fresh load and the Store kept open both show
// what the records say, and reports whether either listed turns/ and how
// many turn files the fresh one read.
func loadAgrees(t *testing.T, root, what string, kept *Store) (listed bool, reads int64) {
	t.Helper()
	want := withoutSummary(t, root)
	before := kept.cache.listed
	log, err := kept.Log(true)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(log, want.Log) {
		t.Fatalf("after %s, the Store kept open shows\n %+v\nwant %+v", what, log, want.Log)
	}
	got, reads, listed := readGenView(t, root)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after %s, a load differs:\n got %+v\nwant %+v", what, got.Log, want.Log)
	}
	return listed || kept.cache.listed != before, reads
}

// keptStore is a Store kept open across writers, as the UI's is, its
// cache loaded.
func keptStore(t *testing.T, root string) *Store {
	t.Helper()
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Log(false); err != nil {
		t.Fatal(err)
	}
	return s
}

// After another Store appended to a turn, opened one, grew one past its
// path index (a file made in turns/) or purged a path (turn files
// replaced), a load reads only the turn files it wrote and lists
// nothing; after a prune it lists.
func TestJournalLoadAfterWriter(t *testing.T) {
	root := journalStore(t)
	kept := keptStore(t, root)
	w := openStore(t, root)
	var many []string
	for i := range 120 {
		p := filepath.Join(root, "many", fmt.Sprintf("%03d-%s.txt", i, strings.Repeat("x", 60)))
		wr(t, root, strings.TrimPrefix(p, root+"/"), "m")
		many = append(many, p)
	}
	steps := []struct {
		what   string
		do     func()
		listed bool
		reads  int64 // at most, when not listed
	}{
		{"a relabel", func() { must(t, w.Relabel("2", "two, renamed")) }, false, 1},
		{"a late capture", func() {
			_, err := w.Capture("1", TurnMeta{}, []string{filepath.Join(root, "late.txt")})
			must(t, err)
		}, false, 1},
		{"a new turn", func() {
			_, err := w.Write("7", TurnMeta{Label: "seven"}, filepath.Join(root, "a.txt"), []byte("A7"))
			must(t, err)
		}, false, 1},
		{"a capture making a path index", func() {
			_, err := w.Capture("7", TurnMeta{}, many)
			must(t, err)
			if _, err := os.Stat(filepath.Join(root, storeDir, turnIndexName("7"))); err != nil {
				t.Fatal("no path index was made:", err)
			}
		}, false, 1},
		{"a prune", func() {
			_, err := w.Prune(PruneOptions{Keep: 5})
			must(t, err)
		}, true, 0},
		{"a relabel after the prune", func() { must(t, w.Relabel("5", "five")) }, false, 1},
		{"a purge", func() {
			res, err := w.Purge([]string{"a.txt"})
			must(t, err)
			if len(res.Turns) < 2 {
				t.Fatalf("the purge changed turns %v", res.Turns)
			}
		}, false, 5},
	}
	for _, st := range steps {
		readGenView(t, root) // the generation as of before this step
		st.do()
		listed, reads := loadAgrees(t, root, st.what, kept)
		if listed != st.listed {
			t.Errorf("after %s, a load listed turns/: %v, want %v", st.what, listed, st.listed)
		}
		if !st.listed && reads > st.reads {
			t.Errorf("after %s, a load read %d turn files, want at most the %d written", st.what, reads, st.reads)
		}
	}
}

// appendByHand appends a record to turn id's file and takes an order
// number without journaling it, as a ckpt older than the journal does.
func appendByHand(t *testing.T, root, id, label string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(root, storeDir, turnFileName(id)), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.Write(record.Append(nil, &record.Line{R: "turn", Turn: record.Turn{ID: id, Label: label}, At: 9, N: 9}))
	f.Close()
	must(t, err)
	takeOrder(t, root)
}

// A writer that took an order number without journaling it (an older
// ckpt) breaks the chain, before or after journaled writers: the load
// lists, and shows what it wrote.
func TestJournalOlderWriter(t *testing.T) {
	cases := []struct {
		name string
		do   func(t *testing.T, root string, w *Store)
	}{
		{"last", func(t *testing.T, root string, w *Store) {
			must(t, w.Relabel("3", "three"))
			appendByHand(t, root, "2", "two, by an older ckpt")
		}},
		{"between", func(t *testing.T, root string, w *Store) {
			must(t, w.Relabel("3", "three"))
			appendByHand(t, root, "2", "two, by an older ckpt")
			must(t, w.Relabel("4", "four"))
		}},
		{"first", func(t *testing.T, root string, w *Store) {
			appendByHand(t, root, "2", "two, by an older ckpt")
			must(t, w.Relabel("4", "four"))
		}},
		{"clock only", func(t *testing.T, root string, w *Store) {
			must(t, w.Relabel("4", "four"))
			takeOrder(t, root)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := journalStore(t)
			kept := keptStore(t, root)
			c.do(t, root, openStore(t, root))
			if listed, _ := loadAgrees(t, root, "an older writer", kept); !listed {
				t.Error("a load trusted a journal an older writer did not write to")
			}
		})
	}
}

// A torn last line of the journal, alone or with a later line run into
// it, a damaged line or magic, break the chain; so does a turn file
// removed by hand after a journaled writer (something that takes no
// order number).
func TestJournalBroken(t *testing.T) {
	tear := func(t *testing.T, root string) {
		p := filepath.Join(root, storeDir, journalFile)
		b, err := os.ReadFile(p)
		must(t, err)
		must(t, os.WriteFile(p, b[:len(b)-12], 0o600))
	}
	cases := []struct {
		name string
		do   func(t *testing.T, root string, w *Store)
	}{
		{"torn", func(t *testing.T, root string, w *Store) {
			must(t, w.Relabel("2", "two"))
			tear(t, root)
		}},
		{"torn, then a writer", func(t *testing.T, root string, w *Store) {
			must(t, w.Relabel("2", "two"))
			tear(t, root)
			must(t, w.Relabel("3", "three"))
		}},
		{"removed by hand", func(t *testing.T, root string, w *Store) {
			must(t, w.Relabel("2", "two"))
			must(t, os.Remove(filepath.Join(root, storeDir, "turns", "4.log")))
		}},
		{"removed by hand between writers", func(t *testing.T, root string, w *Store) {
			must(t, w.Relabel("2", "two"))
			must(t, os.Remove(filepath.Join(root, storeDir, "turns", "4.log")))
			must(t, w.Relabel("3", "three"))
		}},
		{"a name damaged", func(t *testing.T, root string, w *Store) {
			must(t, w.Relabel("2", "two"))
			p := filepath.Join(root, storeDir, journalFile)
			b, err := os.ReadFile(p)
			must(t, err)
			i := strings.LastIndex(string(b), " 2.log ")
			if i < 0 {
				t.Fatalf("the journal does not name 2.log last:\n%s", b)
			}
			b[i+1] = '3'
			must(t, os.WriteFile(p, b, 0o600))
		}},
		{"damaged magic", func(t *testing.T, root string, w *Store) {
			must(t, w.Relabel("2", "two"))
			p := filepath.Join(root, storeDir, journalFile)
			b, err := os.ReadFile(p)
			must(t, err)
			b[0] = 'x'
			must(t, os.WriteFile(p, b, 0o600))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := journalStore(t)
			kept := keptStore(t, root)
			c.do(t, root, openStore(t, root))
			if listed, _ := loadAgrees(t, root, c.name, kept); !listed {
				t.Error("a load trusted a broken journal")
			}
		})
	}
}

// The journal stays bounded: a writer keeps its newer half. A load from a
// generation older than what is kept lists; one from within it does not.
func TestJournalBounded(t *testing.T) {
	defer func(m int) { journalMax = m }(journalMax)
	journalMax = 2 << 10
	root := journalStore(t)
	kept := keptStore(t, root)
	w := openStore(t, root)
	for i := range 60 {
		must(t, w.Relabel("2", fmt.Sprint("two, ", i)))
	}
	st, err := os.Stat(filepath.Join(root, storeDir, journalFile))
	must(t, err)
	if st.Size() > int64(journalMax)+512 {
		t.Errorf("the journal holds %d bytes, bound %d", st.Size(), journalMax)
	}
	if listed, _ := loadAgrees(t, root, "more writers than the journal keeps", kept); !listed {
		t.Error("a load trusted a journal that no longer reaches its generation")
	}
	must(t, w.Relabel("3", "three"))
	if listed, _ := loadAgrees(t, root, "a writer after", kept); listed {
		t.Error("a load from a generation the journal reaches listed turns/")
	}
}
