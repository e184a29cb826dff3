package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/pack"
	"github.com/klauspost/compress/zstd"
)

// bulkTree writes n files and returns their paths.
func bulkTree(t *testing.T, root string, n int) []string {
	t.Helper()
	var paths []string
	for i := range n {
		p := fmt.Sprintf("d%d/f%02d.txt", i%3, i)
		wr(t, root, p, strings.Repeat(fmt.Sprintf("file %d\n", i), 50+i))
		paths = append(paths, p)
	}
	return paths
}

func dirNames(t *testing.T, dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// captureEditSeal captures paths in turn id, rewrites each, and seals.
func captureEditSeal(t *testing.T, s *Store, root, id string, paths []string) {
	t.Helper()
	if _, err := s.Capture(TurnID(id), TurnMeta{}, paths); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		wr(t, root, p, "edited in "+id+" "+p+"\n")
	}
	if err := s.Seal(TurnID(id), paths); err != nil {
		t.Fatal(err)
	}
}

func TestPackBulkCapture(t *testing.T) {
	root := t.TempDir()
	paths := bulkTree(t, root, 30)
	want := map[string]string{}
	for _, p := range paths {
		want[p] = rd(t, root, p)
	}
	s := openStore(t, root)
	captureEditSeal(t, s, root, "1", paths)
	if loose := dirNames(t, filepath.Join(root, storeDir, "blobs")); len(loose) != 0 {
		t.Errorf("a bulk capture left loose blobs: %v", loose)
	}
	if packs := dirNames(t, filepath.Join(root, storeDir, "packs")); len(packs) != 2 {
		t.Errorf("want one pack for the capture and one for the seal, got %v", packs)
	}
	r := rewind(t, s, "1")
	if len(r.Restored) != len(paths) || len(r.Failed) != 0 {
		t.Fatalf("rewind: %+v", r)
	}
	for p, w := range want {
		if got := rd(t, root, p); got != w {
			t.Errorf("%s after rewind: %q", p, got)
		}
	}
	if fs, err := s.Verify(); err != nil || len(fs) != 0 {
		t.Errorf("verify: %v %v", fs, err)
	}
	// A second store reads the packs the first wrote.
	s2 := openStore(t, root)
	undo(t, s2)
	if got := rd(t, root, paths[3]); got != "edited in 1 "+paths[3]+"\n" {
		t.Errorf("after undo: %q", got)
	}
}

func mustPlan(p *Plan, err error) *Plan {
	if err != nil {
		panic(err)
	}
	return p
}

// A frame damaged on purpose: verify names the blob, a rewind fails just
// that path with the reason and leaves the file as it is.
func TestPackDamaged(t *testing.T) {
	root := t.TempDir()
	paths := bulkTree(t, root, 20)
	s := openStore(t, root)
	captureEditSeal(t, s, root, "1", paths)
	victim := paths[7]
	var pre Image
	fl, err := s.Files("1", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fl {
		if f.Path == victim {
			pre = f.Pre
		}
	}
	src, ok := s.packs.find(s, pre.SHA256, true)
	if !ok {
		t.Fatalf("%s is not in a pack", victim)
	}
	packPath := filepath.Join(root, storeDir, filepath.FromSlash(src.where))
	b, _ := os.ReadFile(packPath)
	for i := src.off + src.n/2; i < src.off+src.n/2+4; i++ {
		b[i] ^= 0xff
	}
	os.WriteFile(packPath, b, 0o600)

	s2 := openStore(t, root)
	fs, err := s2.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Kind != FindLostBlob || fs[0].Blob != pre.SHA256 || !slices.Contains(fs[0].Named, "turns/1.log") {
		t.Errorf("verify should name the lost blob and the turn naming it: %+v", fs)
	}
	r := rewind(t, s2, "1")
	if len(r.Failed) != 1 || r.Failed[0].Path != victim || !strings.Contains(r.Failed[0].Reason, pre.SHA256.Short()) {
		t.Fatalf("rewind should fail just %s, with the blob: %+v", victim, r.Failed)
	}
	if len(r.Restored) != len(paths)-1 {
		t.Errorf("rewind restored %d of %d", len(r.Restored), len(paths)-1)
	}
	if got := rd(t, root, victim); got != "edited in 1 "+victim+"\n" {
		t.Errorf("the damaged path was touched: %q", got)
	}
}

// A pack whose index is damaged: its blobs are missing, and verify names
// each one with the records naming it.
func TestPackIndexDamaged(t *testing.T) {
	root := t.TempDir()
	paths := bulkTree(t, root, 12)
	s := openStore(t, root)
	if _, err := s.Capture("1", TurnMeta{}, paths); err != nil {
		t.Fatal(err)
	}
	packs := dirNames(t, filepath.Join(root, storeDir, "packs"))
	if len(packs) != 1 {
		t.Fatalf("packs: %v", packs)
	}
	p := filepath.Join(root, storeDir, "packs", packs[0])
	b, _ := os.ReadFile(p)
	b[len(b)-pack.TrailerLen-3] ^= 0xff
	os.WriteFile(p, b, 0o600)
	fs, err := openStore(t, root).Verify()
	if err != nil {
		t.Fatal(err)
	}
	missing := 0
	for _, f := range fs {
		if f.Kind == FindMissingBlob && slices.Equal(f.Named, []string{"turns/1.log"}) {
			missing++
		}
	}
	if missing != len(paths) || len(fs) != len(paths)+1 {
		t.Errorf("want the pack and its %d blobs named: %+v", len(paths), fs)
	}
}

// Odd files named like blobs: a FIFO must not hang a reader, a zstd bomb
// must fail once it passes the size its record gives.
func TestOddBlobs(t *testing.T) {
	sum := hashHex([]byte("hello\n"))
	enc, _ := zstd.NewWriter(nil)
	bomb := enc.EncodeAll(make([]byte, 64<<20), nil)
	cases := []struct {
		name  string
		plant func(t *testing.T, blob string)
		size  int64
	}{
		{"fifo", func(t *testing.T, blob string) {
			if err := syscall.Mkfifo(blob, 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
		}, 6},
		{"bomb small record", func(t *testing.T, blob string) { os.WriteFile(blob, bomb, 0o600) }, 6},
		{"bomb big record", func(t *testing.T, blob string) { os.WriteFile(blob, bomb, 0o600) }, inMemMax + 1},
		{"folder", func(t *testing.T, blob string) { os.Mkdir(blob, 0o700) }, 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			wr(t, root, "a.txt", "hello\n")
			s := openStore(t, root)
			if _, err := s.Capture("1", TurnMeta{}, []string{"a.txt"}); err != nil {
				t.Fatal(err)
			}
			wr(t, root, "a.txt", "changed\n")
			blob := filepath.Join(root, storeDir, "blobs", sum+".zst")
			os.Remove(blob)
			c.plant(t, blob)
			done := make(chan error, 1)
			go func() {
				_, err := s.readBlob(mustBlobID(t, sum), c.size)
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !errors.Is(err, ErrCorrupt) {
					t.Errorf("readBlob: %v, want ErrCorrupt", err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("readBlob hangs")
			}
			r := rewind(t, openStore(t, root), "1")
			if len(r.Failed) != 1 || rd(t, root, "a.txt") != "changed\n" {
				t.Errorf("rewind over a bad blob: %+v, a.txt=%q", r, rd(t, root, "a.txt"))
			}
		})
	}
}

// Files over inMemMax stream: kept, hashed and restored without being
// held whole, and checked as they stream back.
func TestBigFileStreams(t *testing.T) {
	root := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), (inMemMax+4096)/16)
	big = append(big, "tail"...)
	wr(t, root, "big.bin", string(big))
	s, err := Open(root, Options{Create: true, MaxBlob: 4 * inMemMax})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	captureEditSeal(t, s, root, "1", []string{"big.bin"})
	r := rewind(t, s, "1")
	if len(r.Restored) != 1 {
		t.Fatalf("rewind: %+v", r)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "big.bin")); !bytes.Equal(got, big) {
		t.Fatalf("big.bin after rewind: %d bytes, want %d", len(got), len(big))
	}
	undo(t, s)
	// Damage the kept blob: the rewind fails that path and leaves it.
	sum := hashHex(big)
	blob := filepath.Join(root, storeDir, "blobs", sum+".zst")
	b, err := os.ReadFile(blob)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	os.WriteFile(blob, b, 0o600)
	r = rewind(t, s, "1")
	if len(r.Failed) != 1 || rd(t, root, "big.bin") != "edited in 1 big.bin\n" {
		t.Errorf("rewind over a damaged big blob: %+v", r)
	}
	if ents := dirNames(t, root); len(ents) != 2 {
		t.Errorf("left behind: %v", ents)
	}
}

// The pack format in the package doc matches the code.
func TestDocPackFormat(t *testing.T) {
	doc := docSource(t)
	for _, want := range []string{
		strconv.Quote(pack.Header),
		fmt.Sprintf("header, %d bytes", len(pack.Header)),
		strconv.Quote(pack.Magic),
		strconv.Quote(pack.End),
		fmt.Sprintf("trailer, %d bytes", pack.TrailerLen),
		"packs/<id>.pack",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the package doc does not say %s", want)
		}
	}
}

// TestStoredFrame: a blob kept as it is is a zstd frame every reader
// decodes, whole or streaming, at each size the header spells differently.
func TestStoredFrame(t *testing.T) {
	for _, n := range []int{1, 255, 256, 257, storedMax, 65791} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(i*7 + n)
			}
			z := storedFrame([]byte("x"), data)[1:]
			got, err := zstdDecoder().DecodeAll(z, nil)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("DecodeAll: %v, %d bytes back of %d", err, len(got), n)
			}
			d, err := zstd.NewReader(bytes.NewReader(z), zstd.WithDecoderConcurrency(1))
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			var buf bytes.Buffer
			if _, err := buf.ReadFrom(d); err != nil || !bytes.Equal(buf.Bytes(), data) {
				t.Fatalf("streaming: %v, %d bytes back of %d", err, buf.Len(), n)
			}
		})
	}
	// Through the store: small and larger blobs, loose and packed, read back.
	for _, looseMax := range []int{100, 1} {
		root := t.TempDir()
		var paths []string
		for i, size := range []int{0, 1, 300, storedMax, storedMax + 1, 5000} {
			p := fmt.Sprintf("f%d", i)
			wr(t, root, p, strings.Repeat("z", size))
			paths = append(paths, p)
		}
		s := openStore(t, root)
		s.looseMax = looseMax
		if _, err := s.Capture("1", TurnMeta{}, paths); err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			want, _ := os.ReadFile(filepath.Join(root, p))
			img, _, _ := s.ReadDisk(p)
			got, err := s.readBlobOf(img)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("looseMax %d: %s read back %d bytes (%v), want %d", looseMax, p, len(got), err, len(want))
			}
		}
		s.Close()
	}
}

// TestLooseCopyOfPackedBlob: a small capture does not read the packs'
// indexes to find a blob, so bytes a pack holds may be kept again as a
// loose blob. Both copies serve readers, verify accepts the store, and
// prune keeps it whole.
func TestLooseCopyOfPackedBlob(t *testing.T) {
	root, paths, copies := looseCopyOfPacked(t)
	s := openStore(t, root)
	want := rd(t, root, paths[0])
	wr(t, root, paths[0], "agent\n")
	r := rewind(t, s, "2")
	if len(r.Restored) != 1 || len(r.Failed) != 0 || rd(t, root, paths[0]) != want {
		t.Fatalf("rewind of the loose copy: %+v, file %q", r, rd(t, root, paths[0]))
	}
	if fs, err := s.Verify(); err != nil || len(fs) != 0 {
		t.Fatalf("verify: %v %v", fs, err)
	}
	if _, err := s.Prune(PruneOptions{Keep: 2}); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(dirNames(t, filepath.Join(root, storeDir, "blobs")), copies[0]) {
		t.Fatalf("prune left the loose copy %s of a packed blob", copies[0])
	}
	if fs, err := s.Verify(); err != nil || len(fs) != 0 {
		t.Fatalf("verify after prune: %v %v", fs, err)
	}
	r = rewind(t, s, "1")
	if len(r.Failed) != 0 || rd(t, root, paths[0]) != want {
		t.Fatalf("rewind of turn 1 after prune: %+v", r)
	}
}

// TestDamagedLooseCopyOfPackedBlob: a rewind reads a blob from a pack
// when its loose copy is damaged.
func TestDamagedLooseCopyOfPackedBlob(t *testing.T) {
	root, paths, loose := looseCopyOfPacked(t)
	p := filepath.Join(root, storeDir, "blobs", loose[0])
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 0xff
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	want := rd(t, root, paths[0])
	wr(t, root, paths[0], "agent\n")
	s := openStore(t, root) // nothing of the packs loaded
	r := rewind(t, s, "2")
	if len(r.Restored) != 1 || len(r.Failed) != 0 || rd(t, root, paths[0]) != want {
		t.Fatalf("rewind with a damaged loose copy: %+v, file %q", r, rd(t, root, paths[0]))
	}
}

// looseCopyOfPacked makes a store in which a pack holds 30 files (turn 1)
// and a later capture of the first of them, in a store opened anew as a
// hook opens it, kept it again as a loose blob (turn 2): that blob's name
// is copies[0].
func looseCopyOfPacked(t *testing.T) (root string, paths, copies []string) {
	t.Helper()
	root = t.TempDir()
	paths = bulkTree(t, root, 30)
	for i, turn := range []string{"1", "2"} {
		s := openStore(t, root)
		if _, err := s.Capture(TurnID(turn), TurnMeta{}, paths[:len(paths)-i*29]); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	copies = dirNames(t, filepath.Join(root, storeDir, "blobs"))
	if len(copies) != 1 {
		t.Fatalf("want the one file kept loose again, got %v", copies)
	}
	return root, paths, copies
}

// TestStoredPayload: only the frames storedFrame writes are read as such.
func TestStoredPayload(t *testing.T) {
	for _, n := range []int{1, 255, 256, 6000, 65791} {
		data := bytes.Repeat([]byte{'x'}, n)
		z := storedFrame(nil, data)
		if got, ok := storedPayload(z); !ok || !bytes.Equal(got, data) {
			t.Errorf("%d bytes: not read back (%v)", n, ok)
		}
		if _, ok := storedPayload(z[:len(z)-1]); ok {
			t.Errorf("%d bytes: a cut frame read as whole", n)
		}
		if _, ok := storedPayload(append(z, 0)); ok {
			t.Errorf("%d bytes: a frame with a byte after it read as whole", n)
		}
	}
	enc := zstdEncoder().EncodeAll(bytes.Repeat([]byte("compressible "), 500), nil)
	if _, ok := storedPayload(enc); ok {
		t.Error("a compressed frame read as stored")
	}
}
