package cli

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
)

// TestCrashDuringBaselineWrite kills the sweep after a command at each
// file operation (CKPT_FAILPOINT=sweep-after:K) where the baseline is
// written three ways: the first frame of its log (the log made), a frame
// appended to a log there already (a torn tail cut, the frame written
// torn, then whole), and a new table once the log would outgrow it (the
// table written beside, renamed over, the log removed). Each time verify
// must accept the store, the next command of the turn must record what
// the killed sweep missed, and rewinding the turn must give the folder
// back as it was.
func TestCrashDuringBaselineWrite(t *testing.T) {
	bin := buildHookBinary(t)
	tree := func(n int) map[string]string {
		files := map[string]string{}
		for i := range n {
			files[fmt.Sprintf("d%02d/f%04d.txt", i/100, i)] = fmt.Sprintf("file %d\n", i)
		}
		return files
	}
	small := "echo a1 > d00/f0000.txt; rm d01/f0100.txt; mkdir -p n; echo new > n/n.txt"
	cases := []struct {
		name    string
		files   int
		before  string // an unkilled command of the turn first
		command string
	}{
		{"first frame", 400, "", small},
		{"appended frame", 400, "echo b1 > d02/f0200.txt", small},
		// Every file changed: a frame past the log's share (64 KiB).
		{"new table", 1200, "echo b1 > d02/f0200.txt", "for f in d*/*.txt; do echo more >> $f; done; rm d03/f0300.txt"},
	}
	for _, c := range cases {
		killedOnce := false
		for k := 1; k < 60; k++ {
			root := t.TempDir()
			writeTexts(t, root, tree(c.files))
			// The killed sweeps leave a baseline log past its share, so each
			// command would start a detached `ckpt maintain` that compacts it
			// after 20s of quiet: one still writing in the store when the test
			// ends makes removing the temporary folder fail.
			writeText(t, root, ".osfoundry/ckpt.json", `{"retention": {"auto": false}}`)
			env := hookEnv(map[string]string{"CKPT_ROOT": root})
			if r := runBinary(bin, root, nil, env, "exec", "--turn", "1", "--", "true"); r.Code != 0 {
				t.Fatalf("first sweep: %+v", r)
			}
			before := snapshotDir(t, root)
			if c.before != "" {
				if r := runBinary(bin, root, nil, env, "exec", "--turn", "1", "--", "sh", "-c", c.before); r.Code != 0 {
					t.Fatalf("%s: %+v", c.before, r)
				}
			}
			kenv := hookEnv(map[string]string{"CKPT_ROOT": root, "CKPT_FAILPOINT": "sweep-after:" + strconv.Itoa(k)})
			r := runBinary(bin, root, nil, kenv, "exec", "--turn", "1", "--", "sh", "-c", c.command)
			killed := r.Code != 0
			killedOnce = killedOnce || killed
			what := c.name + ":" + strconv.Itoa(k)
			if v := runBinary(bin, root, nil, env, "verify"); v.Code != 0 {
				t.Fatalf("%s: verify after the kill: %+v", what, v)
			}
			if r := runBinary(bin, root, nil, env, "exec", "--turn", "1", "--", "true"); r.Code != 0 {
				t.Fatalf("%s: next command: %+v", what, r)
			}
			// A later turn finds nothing to record: the baseline is the disk.
			if r := runBinary(bin, root, nil, env, "exec", "--turn", "2", "--", "true"); r.Code != 0 {
				t.Fatalf("%s: a later turn: %+v", what, r)
			}
			if r := runBinary(bin, root, nil, env, "show", "2", "--json"); r.Code == 0 {
				var got struct {
					Files []struct{ Path string } `json:"files"`
				}
				if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil || len(got.Files) > 0 {
					t.Fatalf("%s: turn 2 recorded %s (%v): the baseline was not the disk", what, r.Stdout, err)
				}
			}
			if r := runBinary(bin, root, nil, env, "rewind", "1", "--yes"); r.Code != 0 {
				t.Fatalf("%s: rewind: %+v", what, r)
			}
			requireSnapshot(t, root, before, what+": after rewinding the turn")
			if !killed {
				break
			}
		}
		if !killedOnce {
			t.Fatalf("%s: never killed: the failpoint is not honoured", c.name)
		}
	}
}
