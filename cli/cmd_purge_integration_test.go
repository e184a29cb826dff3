package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// A purge killed after each of its file operations (the journal, each
// record file replaced, the baseline, each blob removed, each pack
// rewritten, the index, the journal's removal): the next command finishes
// it, so no blob of the store holds the purged bytes, verify passes, and
// a rewind reports the path as purged while restoring the others exactly.
func TestCrashDuringPurge(t *testing.T) {
	base := t.TempDir()
	tmpl := filepath.Join(base, "template")
	paths, before := packedTemplate(t, tmpl, 3)
	secret := "p/f03.txt"
	ckptOK(t, tmpl, "exec", "--turn", "4", "--", "sh", "-c", "echo swept > p/f04.txt")
	// A conversation that pasted one version of the secret and a command
	// that wrote another.
	said := `{"v":1,"prompt":"it held: by turn 2 p/f03.txt","reply":"Done.","calls":[{"name":"bash","target":"printf 'by turn 1 p/f03.txt' > p/f03.txt","state":"ok"}]}`
	writeText(t, tmpl, ".osfoundry/checkpoints/conversations/2.json", said)
	kills := 0
	for k := 1; ; k++ {
		if k > maxFailpoint {
			t.Fatalf("purge still killed at purge:%d", k)
		}
		root := filepath.Join(base, fmt.Sprintf("k%d", k))
		copyTree(t, tmpl, root)
		r := ckptDo(t, ckptCall{Root: root, Env: []string{"CKPT_FAILPOINT=purge:" + strconv.Itoa(k)}}, "purge", secret, "--yes")
		if ok, _, _, out := verifyJSON(t, root); !ok {
			t.Errorf("purge:%d: verify\n%s", k, out)
		}
		for i := range before {
			needle := strings.Repeat("by turn "+strconv.Itoa(i+1)+" "+secret+"\n", i+1)
			if i == 0 {
				needle = before[0][secret]
			}
			if where := storeHolds(t, root, needle); where != "" {
				t.Errorf("purge:%d: %s still holds a copy of %s", k, where, secret)
			}
		}
		for _, line := range []string{"by turn 1 " + secret, "by turn 2 " + secret} {
			if where := storeHolds(t, root, line); where != "" {
				t.Errorf("purge:%d: %s still holds %q", k, where, line)
			}
		}
		rw := ckpt(t, root, "rewind", "1", "--yes")
		if !strings.Contains(rw.Stdout, secret+": not restored: purged") {
			t.Errorf("purge:%d: the rewind does not report %s as purged:\n%s", k, secret, rw.Stdout)
		}
		for _, p := range paths {
			if p != secret {
				if got := readText(t, root, p); got != before[0][p] {
					t.Errorf("purge:%d: %s after rewinding turn 1: %q", k, p, got)
				}
			}
		}
		if !r.Killed {
			if r.Code != 0 {
				t.Fatalf("purge:%d: want exit 0 or SIGKILL\n%s", k, r)
			}
			break
		}
		kills++
		os.RemoveAll(root)
	}
	if kills < 4 {
		t.Errorf("purge killed at only %d file operations", kills)
	}
	t.Logf("purge killed after each of %d file operations", kills)
}

// storeHolds names a store file holding needle, decompressing blobs and
// pack frames; "" when none does.
func storeHolds(t *testing.T, root, needle string) string {
	t.Helper()
	dir := filepath.Join(root, ".osfoundry", "checkpoints")
	found := ""
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || found != "" {
			return nil
		}
		data, _ := os.ReadFile(p)
		if strings.Contains(string(data), needle) || strings.Contains(string(zstdFrames(data)), needle) {
			found, _ = filepath.Rel(root, p)
		}
		return nil
	})
	return found
}

// zstdFrames is what every zstd frame found in data decodes to, as far as
// each decodes.
func zstdFrames(data []byte) []byte {
	var out []byte
	magic := []byte{0x28, 0xb5, 0x2f, 0xfd}
	for i := 0; ; {
		j := bytes.Index(data[i:], magic)
		if j < 0 {
			return out
		}
		i += j
		if d, err := zstd.NewReader(bytes.NewReader(data[i:]), zstd.WithDecoderConcurrency(1)); err == nil {
			b, _ := io.ReadAll(d)
			out = append(out, b...)
			d.Close()
		}
		i += len(magic)
	}
}
