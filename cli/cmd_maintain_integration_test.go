package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// packedTemplate makes a project whose turns each keep more files than a
// hook keeps loose, so each capture and seal writes a pack: n turns, the
// content each file held before each turn returned by turn.
func packedTemplate(t *testing.T, dir string, n int) (paths []string, before []map[string]string) {
	for i := range 10 {
		p := fmt.Sprintf("p/f%02d.txt", i)
		writeText(t, dir, p, strings.Repeat(fmt.Sprintf("first %d\n", i), 40+i))
		paths = append(paths, p)
	}
	for k := 1; k <= n; k++ {
		cur := map[string]string{}
		for _, p := range paths {
			cur[p] = readText(t, dir, p)
		}
		before = append(before, cur)
		id := strconv.Itoa(k)
		ckptOK(t, dir, append([]string{"capture", "--turn", id}, paths...)...)
		for _, p := range paths {
			writeText(t, dir, p, strings.Repeat("by turn "+id+" "+p+"\n", k))
		}
		ckptOK(t, dir, append([]string{"seal", "--turn", id}, paths...)...)
	}
	return paths, before
}

func verifyJSON(t *testing.T, root string) (ok bool, packs, loose int, out string) {
	t.Helper()
	r := ckpt(t, root, "verify", "--json")
	var v struct {
		OK           bool `json:"ok"`
		Packs, Loose int
	}
	if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, r)
	}
	return v.OK, v.Packs, v.Loose, r.String()
}

// A repack killed after each of its file operations (packing the loose
// blobs, creating, writing and renaming the merged pack, the barrier,
// writing the lookup index, removing each merged pack and each loose
// copy) leaves every blob somewhere: verify passes, and rewinding the
// newest turn (its blobs were loose) and the oldest give back their
// bytes exactly.
func TestCrashDuringRepackMerge(t *testing.T) {
	base := t.TempDir()
	tmpl := filepath.Join(base, "template")
	paths, before := packedTemplate(t, tmpl, 5)
	if _, packs, _, _ := verifyJSON(t, tmpl); packs < 5 {
		t.Fatalf("template holds %d packs, want a pack a turn", packs)
	}
	// A turn of two files, as a hook keeps them: loose blobs, which
	// maintain --now packs, removing each loose copy once packed.
	ckptOK(t, tmpl, "capture", "--turn", "6", paths[0], paths[1])
	before6 := map[string]string{paths[0]: readText(t, tmpl, paths[0]), paths[1]: readText(t, tmpl, paths[1])}
	writeText(t, tmpl, paths[0], "by turn 6\n")
	writeText(t, tmpl, paths[1], "by turn 6 too\n")
	ckptOK(t, tmpl, "seal", "--turn", "6", paths[0], paths[1])
	if _, _, loose, _ := verifyJSON(t, tmpl); loose < 4 {
		t.Fatalf("template holds %d loose blobs, want turn 6's four", loose)
	}
	kills := eachKill(t, base, tmpl, "repack", []string{"maintain", "--now"}, func(k int, root string, r ckptRun) {
		if ok, _, _, out := verifyJSON(t, root); !ok {
			t.Errorf("repack:%d: verify\n%s", k, out)
		}
		ckptOK(t, root, "rewind", "6", "--yes")
		for p, want := range before6 {
			if got := readText(t, root, p); got != want {
				t.Errorf("repack:%d: %s after rewinding turn 6: %q", k, p, got)
			}
		}
		ckptOK(t, root, "undo", "--yes")
		if got := readText(t, root, paths[1]); got != "by turn 6 too\n" {
			t.Errorf("repack:%d: %s after undoing the rewind of turn 6: %q", k, paths[1], got)
		}
		ckptOK(t, root, "rewind", "1", "--yes")
		for _, p := range paths {
			if got := readText(t, root, p); got != before[0][p] {
				t.Errorf("repack:%d: %s after rewinding turn 1: %q", k, p, got)
			}
		}
		if !r.Killed {
			if _, packs, loose, _ := verifyJSON(t, root); packs > 2 || loose != 0 {
				t.Errorf("after a whole repack: %d packs, %d loose blobs", packs, loose)
			}
		}
	})
	if kills < 4 {
		t.Errorf("repack killed at only %d file operations", kills)
	}
	t.Logf("repack killed after each of %d file operations", kills)
}

// A retention pass over a budget of one byte, killed after each of its
// file operations (each turn file it drops, each blob and pack it
// removes or rewrites, the index, its stamp): the rewound turn an undo
// needs stays, verify passes, and undo and a rewind of the newest turn
// left are exact.
func TestCrashDuringRetention(t *testing.T) {
	base := t.TempDir()
	tmpl := filepath.Join(base, "template")
	paths, before := packedTemplate(t, tmpl, 5)
	after5 := map[string]string{}
	for _, p := range paths {
		after5[p] = readText(t, tmpl, p)
	}
	ckptOK(t, tmpl, "rewind", "5", "--yes")
	writeText(t, tmpl, ".osfoundry/ckpt.json", `{"retention": {"max_age": "off", "max_size": 1, "keep": 1}} /* tiny */`)
	kills := eachKill(t, base, tmpl, "retain", []string{"maintain", "--now"}, func(k int, root string, r ckptRun) {
		if ok, _, _, out := verifyJSON(t, root); !ok {
			t.Errorf("retain:%d: verify\n%s", k, out)
		}
		ckptOK(t, root, "undo", "--yes")
		for _, p := range paths {
			if got := readText(t, root, p); got != after5[p] {
				t.Errorf("retain:%d: %s after undo: %q", k, p, got)
			}
		}
		ckptOK(t, root, "rewind", "5", "--yes")
		for _, p := range paths {
			if got := readText(t, root, p); got != before[4][p] {
				t.Errorf("retain:%d: %s after rewinding turn 5: %q", k, p, got)
			}
		}
		if !r.Killed {
			log := ckptOK(t, root, "log", "--json")
			for _, gone := range []string{`"id":"1"`, `"id":"4"`} {
				if strings.Contains(strings.ReplaceAll(log.Stdout, " ", ""), gone) {
					t.Errorf("turn %s survived the retention pass:\n%s", gone, log.Stdout)
				}
			}
		}
	})
	if kills < 4 {
		t.Errorf("retention killed at only %d file operations", kills)
	}
	t.Logf("retention killed after each of %d file operations", kills)
}
