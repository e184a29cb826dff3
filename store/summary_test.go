package store

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

func init() {
	// Every store test keeps a summary, so each load after the first is
	// read from it: the whole suite checks it agrees with the records.
	summaryMin, summarySettle, genSettle = 1, 0, 0
}

// summaryStore is a store of turns of every kind of record a summary
// must carry: sealed and unsealed files, a deletion, a link, a refused
// path, a relabel, a source, shell commands, rewinds and an undo, a
// damaged line in the middle of one turn file and a torn last record in
// another.
func summaryStore(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	wr(t, root, "a.txt", "A0")
	wr(t, root, "b.txt", "B0")
	s := openStore(t, root)
	for i := 1; i <= 12; i++ {
		n := strconv.Itoa(i)
		id := TurnID(n)
		meta := TurnMeta{Label: "turn " + n, Source: &Source{Agent: "claude", Session: "s1", Prompt: "do " + n}}
		if _, err := s.Write(id, meta, filepath.Join(root, "a.txt"), []byte("A"+n)); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := s.Capture(id, meta, []string{filepath.Join(root, "c"+n+".txt")}); err != nil {
				t.Fatal(err)
			}
		}
		if i%4 == 0 {
			if _, err := s.Remove(id, meta, []string{filepath.Join(root, "b.txt")}); err != nil {
				t.Fatal(err)
			}
			wr(t, root, "b.txt", "B"+n)
		}
	}
	if err := s.Relabel("5", "renamed five"); err != nil {
		t.Fatal(err)
	}
	os.Symlink("a.txt", filepath.Join(root, "l"))
	if _, err := s.Capture("7", TurnMeta{}, []string{filepath.Join(root, "l")}); err != nil {
		t.Fatal(err)
	}
	rewind(t, s, "10")
	undo(t, s)
	rewind(t, s, "11")
	wr(t, root, "a.txt", "by hand")
	dir := filepath.Join(root, storeDir, "turns")
	var refused []byte
	refused = record.Append(refused, &record.Line{R: "turn", Turn: record.Turn{V: formatVersion, ID: "x", Label: "hostile"}, At: 5, N: 5})
	refused = record.Append(refused, &record.Line{R: "pre", File: record.File{Path: "../out.txt", Img: &Image{Kind: ImageAbsent}}, At: 6, N: 6})
	refused = record.Append(refused, &record.Line{R: "pre", File: record.File{Path: ".osfoundry/checkpoints/seq", Img: &Image{Kind: ImageAbsent}}, At: 6, N: 6})
	refused = append(refused, "00000000 {\"r\":\"pre\"}\n"...) // a damaged line in the middle
	refused = record.Append(refused, &record.Line{R: "pre", File: record.File{Path: "d.txt", Img: &Image{Kind: ImageAbsent}, Dirs: []string{"d"}}, At: 7, N: 7})
	refused = record.Append(refused, &record.Line{R: "pre", File: record.File{Path: "e.txt", Img: &Image{Kind: ImageSkipped, Reason: "too big", SHA256: blobIDOf([]byte("e"))}, Cmd: "sed -i s/a/b/ e.txt", Shared: []string{"3"}}, At: 8, N: 8})
	refused = record.Append(refused, &record.Line{R: "post", File: record.File{Path: "e.txt", Img: &Image{Kind: ImageContent, SHA256: blobIDOf([]byte("e2")), Size: 2, Mode: 0o755, Kept: true}, Cmd: "sed -i s/a/b/ e.txt"}, At: 9, N: 9})
	os.WriteFile(filepath.Join(dir, "x.log"), refused, 0o600)
	f, _ := os.OpenFile(filepath.Join(dir, "3.log"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`1234abcd {"r":"post","p":"a.t`) // torn
	f.Close()
	os.Remove(filepath.Join(root, storeDir, summaryFile)) // the loads above wrote one
	return root
}

// storeView is everything the log, show and the UI read of a store.
type storeView struct {
	Log   []Entry
	Files map[string][]File
}

func readView(t *testing.T, root string) (storeView, int64) {
	t.Helper()
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var v storeView
	if v.Log, err = s.Log(true); err != nil {
		t.Fatal(err)
	}
	reads := s.cache.reads.Load()
	v.Files = map[string][]File{}
	for _, e := range v.Log {
		if v.Files[e.ID], err = s.Files(e.ID, true); err != nil {
			t.Fatal(err)
		}
	}
	return v, reads
}

func withoutSummary(t *testing.T, root string) storeView {
	t.Helper()
	defer func(m int) { summaryMin = m }(summaryMin)
	summaryMin = math.MaxInt
	v, _ := readView(t, root)
	return v
}

// The log and every turn's files read the same with the summary as from
// the records alone; once it is written, a load reads no turn file but
// the torn one (never summarized: its next writer cuts it).
func TestSummaryAgreesWithRecords(t *testing.T) {
	root := summaryStore(t)
	want := withoutSummary(t, root)
	if _, err := os.Stat(filepath.Join(root, storeDir, summaryFile)); err == nil {
		t.Fatal("a summary was written with summaries off")
	}
	got, reads := readView(t, root)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("first load with a summary differs:\n got %+v\nwant %+v", got.Log, want.Log)
	}
	turns, _ := filepath.Glob(filepath.Join(root, storeDir, "turns", "*.log"))
	if reads != int64(len(turns)) {
		t.Errorf("the first load read %d turn files, want all %d", reads, len(turns))
	}
	got, reads = readView(t, root)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("load from the summary differs:\n got %+v\nwant %+v", got.Log, want.Log)
	}
	if reads != 1 {
		t.Errorf("a load from the summary read %d turn files, want 1 (the torn one)", reads)
	}
}

// A summary that is damaged, cut short, empty, garbage, or of a newer
// version is never believed over the records: the view is the records',
// and a newer one is left as it is.
func TestSummaryDamaged(t *testing.T) {
	root := summaryStore(t)
	want := withoutSummary(t, root)
	readView(t, root)
	sumPath := filepath.Join(root, storeDir, summaryFile)
	good, err := os.ReadFile(sumPath)
	if err != nil {
		t.Fatal(err)
	}
	newer := append([]byte(nil), good...)
	newer[len(summaryMagic)-1]++
	older := append([]byte(nil), good...)
	older[len(summaryMagic)-1]-- // lacks "seen": read from the records and replaced
	cases := map[string][]byte{
		"empty":       {},
		"garbage":     bytes.Repeat([]byte("ckpt"), 100),
		"magic only":  []byte(summaryMagic),
		"cut short":   good[:len(good)/2],
		"cut at one":  good[:len(summaryMagic)+1],
		"newer":       newer,
		"older":       older,
		"flipped end": flipAt(good, len(good)-3),
		"flipped mid": flipAt(good, len(good)/2),
		"flipped len": flipAt(good, len(summaryMagic)),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(sumPath, data, 0o600); err != nil {
				t.Fatal(err)
			}
			for i := range 2 { // the second load reads what the first wrote
				got, _ := readView(t, root)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("load %d over a %s summary differs:\n got %+v\nwant %+v", i, name, got.Log, want.Log)
				}
			}
			after, _ := os.ReadFile(sumPath)
			if name == "newer" && !bytes.Equal(after, newer) {
				t.Errorf("a newer ckpt's summary was rewritten")
			}
			if name == "older" && !bytes.HasPrefix(after, []byte(summaryMagic)) {
				t.Errorf("an older ckpt's summary was not replaced")
			}
		})
	}
}

func flipAt(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x5a
	return c
}

// What changes after the summary was written is read from the records:
// a record appended (by another process), a turn file replaced whole (as
// purge does), one removed (as prune does), one added.
func TestSummaryFollowsRecords(t *testing.T) {
	root := summaryStore(t)
	readView(t, root)
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Capture("2", TurnMeta{}, []string{filepath.Join(root, "late.txt")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write("13", TurnMeta{Label: "new"}, filepath.Join(root, "b.txt"), []byte("B13")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	dir := filepath.Join(root, storeDir, "turns")
	os.Remove(filepath.Join(dir, "1.log"))
	// Same length, other bytes, a new file renamed into place.
	old, _ := os.ReadFile(filepath.Join(dir, "5.log"))
	repl := bytes.Replace(old, []byte("renamed five"), []byte("renamed 5!!!"), 1)
	if bytes.Equal(repl, old) {
		t.Fatal("no label to replace")
	}
	repl = reframe(t, repl)
	os.WriteFile(filepath.Join(dir, "5.new"), repl, 0o600)
	os.Rename(filepath.Join(dir, "5.new"), filepath.Join(dir, "5.log"))
	want := withoutSummary(t, root)
	for i := range 2 {
		got, _ := readView(t, root)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("load %d differs:\n got %+v\nwant %+v", i, got.Log, want.Log)
		}
	}
	if !hasLabel(want.Log, "renamed 5!!!") || hasLabel(want.Log, "turn 1") {
		t.Fatalf("the test's changes are not in the log: %+v", want.Log)
	}
}

// reframe recomputes each line's checksum.
func reframe(t *testing.T, data []byte) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if len(l) < 10 {
			continue
		}
		body := bytes.TrimSuffix(l[9:], []byte("\n"))
		out = fmt.Appendf(out, "%08x %s\n", crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)), body)
	}
	return out
}

func hasLabel(log []Entry, label string) bool {
	for _, e := range log {
		if e.Label == label {
			return true
		}
	}
	return false
}

// A turn file changed within summarySettle is not summarized (it is
// likely to change again at once); left alone longer, it is.
func TestSummarySettles(t *testing.T) {
	root := summaryStore(t)
	defer func(d time.Duration) { summarySettle = d }(summarySettle)
	summarySettle = time.Hour
	readView(t, root)
	if fi, err := os.Stat(filepath.Join(root, storeDir, summaryFile)); err == nil {
		t.Fatalf("a summary of %d bytes holds turns changed within the hour", fi.Size())
	}
	summarySettle = 0
	readView(t, root)
	if _, reads := readView(t, root); reads != 1 {
		t.Errorf("%d turn files read after the summary was written, want 1 (the torn one)", reads)
	}
}

// Stale entries (a turn rewritten many times) are dropped by rewriting
// the file once they outweigh the live ones, so it stays near the size
// of one entry per turn.
func TestSummaryCompacts(t *testing.T) {
	root := summaryStore(t)
	s, err := Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	big := make([]string, 400)
	for i := range big {
		big[i] = filepath.Join(root, "big", fmt.Sprintf("f%03d", i))
	}
	sumPath := filepath.Join(root, storeDir, summaryFile)
	var most int64
	for i := range 40 {
		if _, err := s.Capture(TurnID(strconv.Itoa(100+i%2)), TurnMeta{}, big[i*10:i*10+10]); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Log(false); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(sumPath)
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, fi.Size())
	}
	fi, _ := os.Stat(sumPath)
	live := len(appendSummaryEntry(nil, "turns/100.log", s.cache.files["turns/100.log"])) * 2
	if most > int64(3*live+200<<10) {
		t.Errorf("the summary grew to %d bytes for %d of live entries", most, live)
	}
	want := withoutSummary(t, root)
	got, _ := readView(t, root)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after compaction the view differs")
	}
	t.Logf("summary %d bytes at the end, %d at most", fi.Size(), most)
}

// A store pruned below summaryMin turns drops its summary, which no load
// reads any more.
func TestSummaryDroppedWhenSmall(t *testing.T) {
	root := summaryStore(t)
	readView(t, root)
	sumPath := filepath.Join(root, storeDir, summaryFile)
	if _, err := os.Stat(sumPath); err != nil {
		t.Fatal(err)
	}
	defer func(m int) { summaryMin = m }(summaryMin)
	summaryMin = 1000
	readView(t, root)
	if _, err := os.Stat(sumPath); err == nil {
		t.Errorf("a store of fewer than %d turns keeps its summary", summaryMin)
	}
}
