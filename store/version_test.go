package store

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/store/internal/pack"
	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// versionedStore makes a store holding one of each versioned file: FORMAT,
// turn files, ops.log (a rewind, and its steps file), packs and a
// baseline.
func versionedStore(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	s := openStore(t, root)
	SetLooseMax(s, 0) // every batch in a pack
	wr(t, root, "a.txt", "a\n")
	wr(t, root, "b.txt", "b\n")
	captureEditSeal(t, s, root, "1", []string{"a.txt", "b.txt"})
	rewind(t, s, "1")
	captureEditSeal(t, s, root, "2", []string{"a.txt", "b.txt"})
	if _, err := s.SweepBefore("3", TurnMeta{}, "true"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Log(true); err != nil {
		t.Fatal(err)
	}
	s.Close()
	return root
}

// storeFiles reads every file of the store at root.
func storeFiles(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	dir := filepath.Join(root, storeDir)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, dir+"/")] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// setRecordVersion rewrites the records of name whose kind is r with
// version v.
func setRecordVersion(t *testing.T, root, name, r string, v int) {
	t.Helper()
	p := filepath.Join(root, storeDir, name)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	res := record.Decode(data)
	var buf []byte
	found := false
	for i := range res.Recs {
		if res.Recs[i].R == r {
			res.Recs[i].V, found = v, true
		}
		buf = record.Append(buf, &res.Recs[i])
	}
	if !found {
		t.Fatalf("%s holds no %q record", name, r)
	}
	if err := os.WriteFile(p, buf, 0o600); err != nil {
		t.Fatal(err)
	}
	takeOrder(t, root)
}

// takeOrder moves the store's clock on, as every writer of a record does
// (nextSeq): a file changed behind the store's back without it may be
// read from the summary (see Summary in the package doc).
func takeOrder(t *testing.T, root string) {
	t.Helper()
	p := filepath.Join(root, storeDir, clockFile)
	b, _ := os.ReadFile(p)
	n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err := os.WriteFile(p, fmt.Appendf(nil, "%020d\n", n+1), 0o600); err != nil {
		t.Fatal(err)
	}
}

func firstFile(t *testing.T, root, dir, suffix string) string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(root, storeDir, dir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), suffix) {
			return dir + "/" + e.Name()
		}
	}
	t.Fatalf("no %s file in %s", suffix, dir)
	return ""
}

// A store file of a newer version than this ckpt reads is refused, by
// every reader, with an error naming the file and the version, and
// nothing in the store changes.
func TestNewerVersionRefused(t *testing.T) {
	type reader struct {
		name string
		run  func(s *Store) error
	}
	open := func(root string) (*Store, error) { return Open(root, Options{}) }
	capture := reader{"capture", func(s *Store) error {
		// Bytes no blob holds yet.
		if err := os.WriteFile(filepath.Join(s.Root(), "new.txt"), []byte("new\n"), 0o644); err != nil {
			return err
		}
		_, err := s.Capture("2", TurnMeta{}, []string{"new.txt"})
		return err
	}}
	log := reader{"log", func(s *Store) error { _, err := s.Log(true); return err }}
	sweep := reader{"sweep", func(s *Store) error { _, err := s.SweepBefore("4", TurnMeta{}, "true"); return err }}
	prune := reader{"prune", func(s *Store) error { _, err := s.Prune(PruneOptions{Keep: 1}); return err }}
	verify := reader{"verify", func(s *Store) error {
		fs, err := s.Verify()
		if err != nil {
			return err
		}
		for _, f := range fs {
			if f.Kind == FindNewerFormat {
				return fmt.Errorf("%s: %s: %w", f.File, f.Detail, ErrNewerFormat)
			}
		}
		return nil
	}}
	for _, tc := range []struct {
		name    string
		file    func(root string) string // the file made newer
		newer   func(t *testing.T, root, file string)
		version string   // as the error gives it
		onOpen  bool     // Open refuses the store
		readers []reader // else these refuse it
	}{
		{
			name: "FORMAT",
			file: func(string) string { return formatFile },
			newer: func(t *testing.T, root, file string) {
				wr(t, filepath.Join(root, storeDir), file, "ckpt-store/"+strconv.Itoa(formatVersion+1)+" (what comes next)\n")
			},
			version: "store format v" + strconv.Itoa(formatVersion+1), onOpen: true,
		},
		{
			name:  "turn file",
			file:  func(string) string { return "turns/2.log" },
			newer: func(t *testing.T, root, file string) { setRecordVersion(t, root, file, "turn", formatVersion+1) },
			// Verify says it as a finding.
			version: "record format v" + strconv.Itoa(formatVersion+1), readers: []reader{capture, log, prune, verify},
		},
		{
			name:    "ops.log",
			file:    func(string) string { return "ops.log" },
			newer:   func(t *testing.T, root, file string) { setRecordVersion(t, root, file, "op", formatVersion+1) },
			version: "record format v" + strconv.Itoa(formatVersion+1), onOpen: true,
		},
		{
			name: "baseline",
			file: func(string) string { return baselineFile },
			newer: func(t *testing.T, root, file string) {
				p := filepath.Join(root, storeDir, file)
				b, _ := os.ReadFile(p)
				b[len(baselineMagic)-1] = baselineVersion + 1
				os.WriteFile(p, b, 0o600)
			},
			version: "baseline format v6", readers: []reader{sweep, prune, verify},
		},
		{
			name: "pack",
			file: func(root string) string { return firstFile(t, root, "packs", ".pack") },
			newer: func(t *testing.T, root, file string) {
				p := filepath.Join(root, storeDir, file)
				b, _ := os.ReadFile(p)
				copy(b, "ckpt-pack 2\n")
				os.WriteFile(p, b, 0o600)
			},
			version: "pack format v2", readers: []reader{prune, verify},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := versionedStore(t)
			file := tc.file(root)
			tc.newer(t, root, file)
			before := storeFiles(t, root)
			check := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, ErrNewerFormat) {
					t.Fatalf("%s: %v, want ErrNewerFormat", what, err)
				}
				msg := err.Error()
				if !strings.Contains(msg, filepath.Base(file)) || !strings.Contains(msg, tc.version) || !strings.Contains(msg, "upgrade ckpt") {
					t.Errorf("%s: %q does not name %s, %q and the remedy", what, msg, file, tc.version)
				}
			}
			s, err := open(root)
			if tc.onOpen {
				if err == nil {
					s.Close()
				}
				check("open", err)
			} else {
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range tc.readers {
					check(r.name, r.run(s))
				}
				s.Close()
			}
			after := storeFiles(t, root)
			for k := range after {
				if b, ok := before[k]; !ok {
					if k == "errors.log" && strings.Contains(after[k], "newer ckpt") {
						continue // the one line that says why, for people
					}
					t.Errorf("%s made", k)
				} else if b != after[k] {
					t.Errorf("%s changed", k)
				}
			}
			for k := range before {
				if _, ok := after[k]; !ok {
					t.Errorf("%s removed", k)
				}
			}
		})
	}
}

// The versions written are the ones the format constants spell out.
func TestVersionsWritten(t *testing.T) {
	if want := "ckpt-pack " + strconv.Itoa(pack.Version) + "\n"; pack.Header != want {
		t.Errorf("pack.Header = %q, want %q", pack.Header, want)
	}
	if int(baselineMagic[len(baselineMagic)-1]) != baselineVersion {
		t.Errorf("baselineMagic ends in %d, want %d", baselineMagic[len(baselineMagic)-1], baselineVersion)
	}
	if want := "ckpt-store/" + strconv.Itoa(formatVersion) + " "; !strings.HasPrefix(FormatName, want) {
		t.Errorf("FormatName = %q, want it to start %q", FormatName, want)
	}
}

// TestNewerTurnFileNotCut: a newer ckpt's turn file whose last line this
// version cannot read is refused as it is, not cut back as if torn first.
func TestNewerTurnFileNotCut(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "a\n")
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Capture("1", TurnMeta{}, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	name := turnFileName("1")
	setRecordVersion(t, root, name, "turn", formatVersion+1)
	p := filepath.Join(root, storeDir, name)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`v3-frame {"r":"what comes next"}`) // no newline: reads as torn
	f.Close()
	before, _ := os.ReadFile(p)
	s, err = Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	wr(t, root, "a.txt", "agent\n")
	if err := s.Seal("1", []string{"a.txt"}); !errors.Is(err, ErrNewerFormat) {
		t.Fatalf("seal of a newer turn file: %v, want ErrNewerFormat", err)
	}
	if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
		t.Fatalf("the newer turn file was changed:\nbefore %q\nafter  %q", before, after)
	}
}

// TestSweepEntrySizeIsRead: a baseline entry takes its size from the read
// that gave its hash, not from the stat before it, which a file growing
// in between makes older; records carry that size beside the hash.
func TestSweepEntrySizeIsRead(t *testing.T) {
	e := baseEntry{size: 401, mode: 0o644}
	img := Image{Kind: ImageContent, SHA256: mustBlobID(t, strings.Repeat("ab", 32)), Size: 446, Mode: 0o644}
	if !e.fill(img, DefaultMaxBlob) {
		t.Fatal("fill refused a content image")
	}
	if e.size != 446 {
		t.Fatalf("entry size %d after a read of %d bytes", e.size, img.Size)
	}
}

// A ckpt older than the store's format refuses to write to it, and says
// why in the error log once, however often it is asked.
func TestOlderCkptRefusesNewerStoreOnce(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a"), 0o644)
	if _, err := s.Capture("1", TurnMeta{}, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	dir := filepath.Join(root, storeDir)
	os.WriteFile(filepath.Join(dir, formatFile), []byte("ckpt-store/99 (from the future)\n"), 0o600)
	turn, _ := os.ReadFile(filepath.Join(dir, "turns/1.log"))
	for range 3 {
		if _, err := Open(root, Options{Create: true}); !errors.Is(err, ErrNewerFormat) {
			t.Fatalf("open: %v, want ErrNewerFormat", err)
		}
	}
	log, _ := os.ReadFile(filepath.Join(dir, "errors.log"))
	if n := strings.Count(string(log), "newer ckpt"); n != 1 {
		t.Fatalf("the error log says it %d times, want once:\n%s", n, log)
	}
	if now, _ := os.ReadFile(filepath.Join(dir, "turns/1.log")); string(now) != string(turn) {
		t.Fatal("a turn file changed")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, formatFile)); !strings.HasPrefix(string(b), "ckpt-store/99") {
		t.Fatalf("FORMAT was rewritten: %q", b)
	}
}

// A store written by an older format becomes this one's once written to:
// FORMAT names this version, so an older ckpt refuses it from then on.
func TestFormatRaisedOnWrite(t *testing.T) {
	root := t.TempDir()
	s, err := Open(root, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	dir := filepath.Join(root, storeDir)
	os.WriteFile(filepath.Join(dir, formatFile), []byte("ckpt-store/2 (crc32c-framed JSON records, zstd blobs)\n"), 0o600)
	s, err = Open(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.NewTurn(TurnMeta{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, formatFile)); string(b) != FormatName+"\n" {
		t.Fatalf("FORMAT holds %q, want %q", b, FormatName)
	}
}
