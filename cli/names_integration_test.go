package cli

// Names that are not UTF-8, through the whole program: JSON carries their
// exact bytes beside the readable string, text shows them escaped, and the
// command line takes them as bytes.

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// exactNames reads a JSON name list back as bytes: each entry of list,
// or the decoded base64 that raw (its "_b64" object) holds for its index.
func exactNames(t *testing.T, list []string, raw map[string]string) []string {
	t.Helper()
	out := append([]string(nil), list...)
	for k, b := range raw {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || i >= len(out) {
			t.Fatalf("_b64 index %q does not index a list of %d", k, len(out))
		}
		dec, err := base64.StdEncoding.DecodeString(b)
		if err != nil {
			t.Fatalf("_b64 %q: %v", b, err)
		}
		out[i] = string(dec)
	}
	return out
}

// nameOp is `rewind|undo|redo --json` with its names' bytes.
type nameOp struct {
	Restored    []string          `json:"restored"`
	RestoredB64 map[string]string `json:"restored_b64"`
	Deleted     []string          `json:"deleted"`
	DeletedB64  map[string]string `json:"deleted_b64"`
	Kept        []string          `json:"kept"`
	KeptB64     map[string]string `json:"kept_b64"`
	Applied     bool              `json:"applied"`
}

func TestNonUTF8NamesExact(t *testing.T) {
	const bad, made = "bad\xffname.txt", "new\xfe.txt"
	p := newTestProject(t, map[string]string{bad: "one\n", "ok.txt": "a\n"})
	p.turn(t, "1", "", []string{bad, "ok.txt", made}, func() {
		writeTexts(t, p.root, map[string]string{bad: "two\n", "ok.txt": "b\n", made: "n\n"})
	})

	// show --json: the readable path, and its bytes beside it only when
	// they are not UTF-8.
	r := ckptOK(t, p.root, "show", "1", "--json")
	var show struct {
		Files []map[string]json.RawMessage `json:"files"`
	}
	decodeJSON(t, r, &show)
	got := map[string]bool{}
	for _, f := range show.Files {
		var path, b64 string
		json.Unmarshal(f["path"], &path)
		raw, has := f["path_b64"]
		if has {
			json.Unmarshal(raw, &b64)
			dec, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				t.Fatalf("show --json path_b64 %q: %v", b64, err)
			}
			if path != strings.ToValidUTF8(string(dec), "\uFFFD") {
				t.Errorf("show --json: path %q does not read as its bytes %q", path, dec)
			}
			path = string(dec)
		}
		if has == (path == "ok.txt") {
			t.Errorf("show --json: %q has path_b64 %v\n%s", path, has, r)
		}
		got[path] = true
	}
	if !got[bad] || !got[made] || !got["ok.txt"] {
		t.Fatalf("show --json names %v, want %q, %q and ok.txt\n%s", got, bad, made, r)
	}

	// Text never carries the raw byte: it shows \xff.
	r = ckptOK(t, p.root, "show", "1")
	if hasRawByte(r.Stdout) || !strings.Contains(r.Stdout, `bad\xffname.txt`) {
		t.Errorf("show text:\n%q", r.Stdout)
	}
	r = ckptCode(t, p.root, 4, "rewind", "1", "--dry-run")
	if hasRawByte(r.Stdout) || !strings.Contains(r.Stdout, `new\xfe.txt`) {
		t.Errorf("rewind plan text:\n%q", r.Stdout)
	}

	// diff TURN PATH takes the name as typed, as bytes.
	r = ckptOK(t, p.root, "diff", "1", bad)
	wantSubstrings(t, "diff 1 "+bad, r.Stdout, "-one", "+two")

	// The plan's lists carry the exact names.
	var op nameOp
	decodeJSON(t, ckptCode(t, p.root, 4, "rewind", "1", "--dry-run", "--json"), &op)
	if rs := exactNames(t, op.Restored, op.RestoredB64); !sameSet(rs, []string{bad, "ok.txt"}) {
		t.Errorf("plan restores %q, want %q and ok.txt", rs, bad)
	}
	if ds := exactNames(t, op.Deleted, op.DeletedB64); !sameSet(ds, []string{made}) {
		t.Errorf("plan deletes %q, want %q", ds, made)
	}

	// --except takes the name as bytes and keeps that file as it is.
	r = ckptOK(t, p.root, "rewind", "1", "--except", bad, "--yes", "--json")
	op = nameOp{}
	decodeJSON(t, r, &op)
	if ks := exactNames(t, op.Kept, op.KeptB64); !op.Applied || !sameSet(ks, []string{bad}) {
		t.Errorf("rewind --except %q kept %q (applied %v)\n%s", bad, ks, op.Applied, r)
	}
	if rs := exactNames(t, op.Restored, op.RestoredB64); !sameSet(rs, []string{"ok.txt"}) || op.RestoredB64 != nil {
		t.Errorf("rewind --except restored %q, %v", rs, op.RestoredB64)
	}
	if readText(t, p.root, bad) != "two\n" || readText(t, p.root, "ok.txt") != "a\n" || pathExists(p.root+"/"+made) {
		t.Errorf("after rewind --except %q: the folder is not as asked", bad)
	}

	// Names that are all UTF-8 add no _b64 key.
	if r := ckptOK(t, p.root, "log", "--json"); strings.Contains(r.Stdout, "_b64") {
		t.Errorf("log --json of UTF-8 turn ids holds a _b64 key:\n%s", r.Stdout)
	}
}

// hasRawByte reports whether s holds one of the raw bytes 0xfe or 0xff,
// which text output must show escaped.
func hasRawByte(s string) bool {
	return strings.IndexByte(s, 0xff) >= 0 || strings.IndexByte(s, 0xfe) >= 0
}
