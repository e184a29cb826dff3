package store

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// genStore is a store of whole turn files (none torn, so a load may
// record a generation): edits, a rewind, and a turn that moved git's
// HEAD, its end recorded.
func genStore(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	s := openStore(t, root)
	for i := 1; i <= 6; i++ {
		n := strconv.Itoa(i)
		if _, err := s.Write(TurnID(n), TurnMeta{Label: "turn " + n}, filepath.Join(root, "a.txt"), []byte("A"+n)); err != nil {
			t.Fatal(err)
		}
		captureEditSeal(t, s, root, n, []string{filepath.Join(root, "f"+n+".txt")})
	}
	rewind(t, s, "6")
	var git []byte
	git = record.Append(git, &record.Line{R: "turn", Turn: record.Turn{V: formatVersion, ID: "g", Label: "ran git", Head: "1111111111111111111111111111111111111111", Ref: "main"}, At: 5, N: 5})
	git = record.Append(git, &record.Line{R: "pre", File: record.File{Path: "g.txt", Img: &Image{Kind: ImageAbsent}}, At: 6, N: 6})
	git = record.Append(git, &record.Line{R: "turn", Turn: record.Turn{ID: "g", Head: "2222222222222222222222222222222222222222", Ref: "main", End: true}, At: 7, N: 7})
	if err := os.WriteFile(filepath.Join(root, storeDir, "turns", "g.log"), git, 0o600); err != nil {
		t.Fatal(err)
	}
	takeOrder(t, root)
	return root
}

// readGenView is readView that also says whether the load listed turns/.
func readGenView(t *testing.T, root string) (storeView, int64, bool) {
	t.Helper()
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v := storeView{Files: map[string][]File{}}
	if v.Log, err = s.Log(true); err != nil {
		t.Fatal(err)
	}
	reads, listed := s.cache.reads.Load(), s.cache.listed > 0
	for _, e := range v.Log {
		if v.Files[e.ID], err = s.Files(e.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	return v, reads, listed
}

// Once a load has recorded the generation, the next one in a fresh
// process neither lists turns/ nor stats or reads a turn file, and shows
// what the records say, git's state at each turn's end too.
func TestSummaryGenerationSkipsListing(t *testing.T) {
	root := genStore(t)
	want := withoutSummary(t, root)
	if e := entryOf(want.Log, "g"); e == nil || !e.RanGit {
		t.Fatalf("turn g does not say it ran git: %+v", e)
	}
	readGenView(t, root) // writes the summary and its generation
	got, reads, listed := readGenView(t, root)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("a load from the generation differs:\n got %+v\nwant %+v", got.Log, want.Log)
	}
	if reads != 0 || listed {
		t.Errorf("a load from the generation read %d turn files (listed turns/: %v), want none", reads, listed)
	}
}

// Whatever a writer does after the generation was recorded is seen at
// once, by a fresh Store and by one kept open (the UI's): a label given
// to an old turn, a path captured late in one, a new turn, a turn file
// removed.
func TestSummaryGenerationFollowsWriters(t *testing.T) {
	root := genStore(t)
	readGenView(t, root)
	kept, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	if _, err := kept.Log(false); err != nil {
		t.Fatal(err)
	}
	w := openStore(t, root)
	steps := []struct {
		what string
		do   func()
	}{
		{"relabel", func() { must(t, w.Relabel("2", "two, renamed")) }},
		{"late capture", func() {
			_, err := w.Capture("1", TurnMeta{}, []string{filepath.Join(root, "late.txt")})
			must(t, err)
		}},
		{"new turn", func() {
			_, err := w.Write("7", TurnMeta{Label: "seven"}, filepath.Join(root, "a.txt"), []byte("A7"))
			must(t, err)
		}},
		{"removed", func() {
			must(t, os.Remove(filepath.Join(root, storeDir, "turns", "3.log")))
			takeOrder(t, root)
		}},
	}
	for _, st := range steps {
		st.do()
		want := withoutSummary(t, root)
		for i := range 3 { // the first writes the change, the second its generation
			got, _, _ := readGenView(t, root)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("after %s, load %d differs:\n got %+v\nwant %+v", st.what, i, got.Log, want.Log)
			}
		}
		log, err := kept.Log(true)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(log, want.Log) {
			t.Fatalf("after %s, the Store kept open shows\n %+v\nwant %+v", st.what, log, want.Log)
		}
		for id, files := range want.Files {
			got, err := kept.Files(id, true)
			if err != nil || !reflect.DeepEqual(got, files) {
				t.Fatalf("after %s, the Store kept open shows turn %s as %+v (%v), want %+v", st.what, id, got, err, files)
			}
		}
	}
}

// A turn file made, replaced or removed by something that takes no order
// number changes the turns folder, which a generation recorded only once
// the folder was left alone for genSettle also names.
func TestSummaryGenerationFolder(t *testing.T) {
	defer func(d time.Duration) { genSettle = d }(genSettle)
	genSettle = 50 * time.Millisecond
	root := genStore(t)
	time.Sleep(2 * genSettle)
	readGenView(t, root)
	if _, _, listed := readGenView(t, root); listed {
		t.Fatal("no generation was recorded")
	}
	must(t, os.Remove(filepath.Join(root, storeDir, "turns", "4.log")))
	want := withoutSummary(t, root)
	got, _, listed := readGenView(t, root)
	if !listed || !reflect.DeepEqual(got, want) {
		t.Fatalf("after a turn file was removed (listed: %v):\n got %+v\nwant %+v", listed, got.Log, want.Log)
	}
	time.Sleep(2 * genSettle)
	readGenView(t, root)
	got, _, listed = readGenView(t, root)
	if listed || !reflect.DeepEqual(got, want) {
		t.Fatalf("the generation after a removal (listed: %v):\n got %+v\nwant %+v", listed, got.Log, want.Log)
	}
}

// No generation is recorded while a turn file has a torn last record (its
// next writer cuts it, which takes no order number first).
func TestSummaryGenerationNotTorn(t *testing.T) {
	root := genStore(t)
	f, err := os.OpenFile(filepath.Join(root, storeDir, "turns", "2.log"), os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	f.WriteString(`1234abcd {"r":"post","p":"a.t`)
	f.Close()
	readGenView(t, root)
	if _, _, listed := readGenView(t, root); !listed {
		t.Error("a load skipped listing turns/ while a turn file is torn")
	}
}

func entryOf(log []Entry, id string) *Entry {
	for i := range log {
		if log[i].ID == id {
			return &log[i]
		}
	}
	return nil
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// An entry whose checksum holds but whose paths do not decode (written
// wrong) costs only a read of that turn's records: the view is the
// records', from the generation still.
func TestSummaryEntryPathsDamaged(t *testing.T) {
	root := genStore(t)
	want := withoutSummary(t, root)
	readGenView(t, root)
	sumPath := filepath.Join(root, storeDir, summaryFile)
	data, err := os.ReadFile(sumPath)
	must(t, err)
	frames, _, ok := scanSummary(data)
	if !ok || len(frames) == 0 || frames[len(frames)-1].name != genFrame {
		t.Fatalf("no generation at the summary's end (%d frames)", len(frames))
	}
	out := []byte(summaryMagic)
	var broken []byte
	for _, fr := range frames[:len(frames)-1] {
		if fr.name != "turns/2.log" {
			out = append(out, data[fr.start:fr.end]...)
			continue
		}
		body := data[fr.body : fr.end-4]
		e := sumEnc{b: append([]byte(nil), body[:len(body)-3]...)} // the last path cut short
		broken = e.frame(nil)
	}
	if broken == nil {
		t.Fatal("no entry for turn 2")
	}
	out = append(append(out, broken...), data[frames[len(frames)-1].start:]...)
	must(t, os.WriteFile(sumPath, out, 0o600))
	got, _, listed := readGenView(t, root)
	if listed || !reflect.DeepEqual(got, want) {
		t.Fatalf("over a damaged entry (listed: %v):\n got %+v\nwant %+v", listed, got.Files["2"], want.Files["2"])
	}
}

// A crash of the system can lose the clock's last update while the
// record that took the number is durable (its turn file is synced, the
// clock never is): after the reboot the clock and the turns folder read
// as when the generation was recorded, and the record is newer than the
// summary. A load trusts no generation recorded in another boot.
func TestSummaryGenerationAfterCrash(t *testing.T) {
	root := genStore(t)
	readGenView(t, root) // the summary,
	readGenView(t, root) // and its generation
	clock, sum := filepath.Join(root, storeDir, clockFile), filepath.Join(root, storeDir, summaryFile)
	before, err := os.ReadFile(clock)
	if err != nil {
		t.Fatal(err)
	}
	w := openStore(t, root)
	if _, err := w.Capture("1", TurnMeta{}, []string{filepath.Join(root, "late.txt")}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// The crash: the capture's record on disk, the clock as it was.
	if err := os.WriteFile(clock, before, 0o600); err != nil {
		t.Fatal(err)
	}
	summary, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	want := withoutSummary(t, root) // which removes the summary
	if files := want.Files["1"]; !slices.ContainsFunc(files, func(f File) bool { return f.Path == "late.txt" }) {
		t.Fatalf("turn 1 from its records holds %+v, not late.txt", files)
	}
	if err := os.WriteFile(sum, summary, 0o600); err != nil {
		t.Fatal(err)
	}
	// In the same boot no update of the clock is lost: the generation
	// stands, and the load shows what it recorded.
	if got, _, listed := readGenView(t, root); listed || reflect.DeepEqual(got, want) {
		t.Fatalf("in the same boot the load listed turns/ (%v) or saw the capture: this test tests nothing", listed)
	}
	if err := os.WriteFile(sum, summary, 0o600); err != nil {
		t.Fatal(err)
	}
	defer func(b func() string) { bootID = b }(bootID)
	bootID = func() string { return "the boot after the crash" }
	for i := range 2 {
		got, _, listed := readGenView(t, root)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("load %d after the crash (listed turns/: %v) differs:\n got %+v\nwant %+v", i, listed, got.Files["1"], want.Files["1"])
		}
	}
}

// A generation frame written before frames named their boot is read, and
// not trusted: the load lists turns/ once and records its own.
func TestSummaryGenerationWithoutBoot(t *testing.T) {
	root := genStore(t)
	readGenView(t, root)
	readGenView(t, root)
	sum := filepath.Join(root, storeDir, summaryFile)
	data, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	frames, _, ok := scanSummary(data)
	if !ok || len(frames) == 0 || frames[len(frames)-1].name != genFrame {
		t.Fatal("no generation at the summary's end")
	}
	g, ok := decodeGen(string(data), frames[len(frames)-1])
	if !ok || g.boot != bootID() {
		t.Fatalf("the generation %+v does not name this boot %q", g, bootID())
	}
	var e sumEnc // the frame as it was written before
	e.str(genFrame)
	e.varint(g.clock)
	e.uvarint(uint64(g.dir.Size))
	e.varint(g.dir.Mtime)
	e.varint(g.dir.Ctime)
	e.uvarint(g.dir.Ino)
	if err := os.WriteFile(sum, e.frame(data[:frames[len(frames)-1].start]), 0o600); err != nil {
		t.Fatal(err)
	}
	want := withoutSummaryKept(t, root)
	for i, wantListed := range []bool{true, false} {
		got, _, listed := readGenView(t, root)
		if listed != wantListed || !reflect.DeepEqual(got, want) {
			t.Fatalf("load %d listed turns/: %v, want %v; differs: %v", i, listed, wantListed, !reflect.DeepEqual(got, want))
		}
	}
}

// withoutSummaryKept is withoutSummary leaving the summary file as it is.
func withoutSummaryKept(t *testing.T, root string) storeView {
	t.Helper()
	sum := filepath.Join(root, storeDir, summaryFile)
	data, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	v := withoutSummary(t, root)
	if err := os.WriteFile(sum, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return v
}
