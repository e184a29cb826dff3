package cli

import (
	"encoding/json"
	"testing"

	"github.com/ckpt-dev/ckpt/store"
)

// With every name UTF-8, the JSON is byte for byte what store.Result
// encodes to; a name that is not adds its bytes beside it.
func TestResultJSONNames(t *testing.T) {
	r := &store.Result{Op: "op-3", Restored: []string{"a.txt", "b.txt"}, Deleted: []string{}, Kept: []string{"k"},
		Failed: []store.Failure{{Path: "f", Reason: "busy"}}, HandEdited: []string{}, Plan: "p1", Applied: true}
	want, _ := json.Marshal(r)
	got, _ := json.Marshal(newResultJSON(r))
	if string(got) != string(want) {
		t.Fatalf("UTF-8 names:\n got %s\nwant %s", got, want)
	}

	r.Restored = []string{"a.txt", "b\xff"}
	r.Failed = []store.Failure{{Path: "\xfe", Reason: "busy"}}
	got, _ = json.Marshal(newResultJSON(r))
	const wantBad = `{"op":"op-3","restored":["a.txt","b\ufffd"],"restored_b64":{"1":"Yv8="},"deleted":[],"kept":["k"],` +
		`"failed":[{"path":"\ufffd","path_b64":"/g==","reason":"busy"}],"hand_edited":[],"plan":"p1","applied":true}`
	if string(got) != wantBad {
		t.Fatalf("non-UTF-8 names:\n got %s\nwant %s", got, wantBad)
	}
	if failuresJSON(nil) != nil {
		t.Fatal("failuresJSON(nil) is not nil: log --json would print \"failed\": []")
	}
}
