package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestCrashDuringSweep kills `ckpt exec` after each file operation of the
// sweep before a command (the first sweep, which keeps every file) and of
// the sweep after it (CKPT_FAILPOINT=sweep-before:K, sweep-after:K). Each
// time verify must accept the store, and the baseline must still be right:
// the next command's sweeps record the killed command's changes against
// the true pre-images, so rewinding the turn gives the folder back.
func TestCrashDuringSweep(t *testing.T) {
	bin := buildHookBinary(t)
	files := map[string]string{".gitignore": "out/\n", "a.txt": "a 0\n", "b.txt": "b 0\n", "c/d.txt": "d 0\n", "e.txt": "e 0\n", ".env": "K=0\n"}
	change := "echo a1 > a.txt; rm b.txt; mv e.txt c/e.txt; echo new > n.txt; echo K=1 > .env; mkdir -p out; echo o > out/o"
	for _, phase := range []string{"sweep-before", "sweep-after"} {
		for k := 1; k < 100; k++ {
			root := t.TempDir()
			writeTexts(t, root, files)
			before := snapshotDir(t, root)
			env := hookEnv(map[string]string{"CKPT_ROOT": root})
			if phase == "sweep-after" {
				if r := runBinary(bin, root, nil, env, "exec", "--turn", "1", "--", "true"); r.Code != 0 {
					t.Fatalf("first sweep: %+v", r)
				}
			}
			kenv := hookEnv(map[string]string{"CKPT_ROOT": root, "CKPT_FAILPOINT": phase + ":" + strconv.Itoa(k)})
			r := runBinary(bin, root, nil, kenv, "exec", "--turn", "1", "--", "sh", "-c", change)
			killed := r.Code != 0
			if v := runBinary(bin, root, nil, env, "verify"); v.Code != 0 {
				t.Fatalf("%s:%d: verify after the kill: %+v", phase, k, v)
			}
			// The next command of the turn picks up what the killed sweep
			// missed; a rewind then gives back the folder as it was.
			if r := runBinary(bin, root, nil, env, "exec", "--turn", "1", "--", "true"); r.Code != 0 {
				t.Fatalf("%s:%d: next command: %+v", phase, k, r)
			}
			if phase == "sweep-after" {
				if r := runBinary(bin, root, nil, env, "rewind", "1", "--yes"); r.Code != 0 {
					t.Fatalf("%s:%d: rewind: %+v", phase, k, r)
				}
				os.RemoveAll(filepath.Join(root, "out"))
				requireSnapshot(t, root, before, phase+":"+strconv.Itoa(k)+": after rewinding the turn")
			}
			if !killed {
				if k < 3 {
					t.Fatalf("%s: never killed", phase)
				}
				break
			}
		}
	}
}
