package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tailscale/hujson"

	"github.com/ckpt-dev/ckpt/store"
)

// The hook reads "auto" from the config with store.StandardJSON, not
// the parser `ckpt maintain` uses: on JSON with comments and trailing
// commas the two agree.
func TestStandardJSONAgreesWithHujson(t *testing.T) {
	for _, in := range []string{
		`{"retention": {"auto": false}}`,
		"{\n // comment\n \"retention\": {\"auto\": false,},\n}",
		"{\"retention\": /* a, } */ {\"auto\": true , } , }",
		`{"a": "// not a comment", "b": "/* nor this */", "c": "q\"uote,}", "retention": {"auto": false}}`,
		"{\"list\": [1, 2, 3,], \"retention\": {\"max_age\": \"30d\", \"auto\": false,\n}\n}\n// end",
		"{\"retention\": {\"auto\": false}} /* unterminated",
	} {
		want, err := hujson.Standardize([]byte(in))
		var a, b any
		if err == nil {
			if err := json.Unmarshal(want, &a); err != nil {
				t.Fatal(err)
			}
		}
		got := store.StandardJSON([]byte(in))
		berr := json.Unmarshal(got, &b)
		if err == nil && (berr != nil || !reflect.DeepEqual(a, b)) {
			t.Errorf("%q: StandardJSON gives %q (%v), hujson %q", in, got, berr, want)
		}
	}
}

// `ckpt exec` starts the background pass when one is due (an agent that
// runs commands through it has no end-of-turn event), and nothing at
// all starts when the config says "auto": false.
func TestExecStartsMaintenance(t *testing.T) {
	for _, auto := range []bool{true, false} {
		root := t.TempDir()
		ckptOK(t, root, "exec", "--turn", "1", "--", "true")
		dir := storeFolder(root)
		if auto == false {
			writeText(t, root, ".osfoundry/ckpt.json", "{\"retention\": {\"auto\": false, // by hand\n}}\n")
		}
		old := time.Now().Add(-2 * time.Hour)
		os.Chtimes(filepath.Join(dir, "FORMAT"), old, old)
		r := ckptDo(t, ckptCall{Root: root, Env: []string{"CKPT_BACKGROUND=on", "CKPT_MAINTAIN_QUIET=0s"}}, "exec", "--turn", "2", "--", "true")
		if r.Code != 0 {
			t.Fatal(r)
		}
		stamp := filepath.Join(dir, "retained")
		// Not a timing assertion: the detached pass is waited for, and
		// its absence is looked for after as long.
		deadline := time.Now().Add(time.Minute)
		if !auto {
			deadline = time.Now().Add(3 * time.Second)
		}
		for !pathExists(stamp) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if pathExists(stamp) != auto {
			t.Errorf("auto %v: a background pass ran: %v", auto, pathExists(stamp))
		}
	}
}
