package record

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestFastSeed(t *testing.T) {
	cases := []struct {
		name, in string
		fast     bool
	}{
		{"python", `[{"turn": 1, "label": "restyle the page", "at": 1764412345123456789, "files": [{"path": "/home/u/site/styles.css", "pre": {"kind": "content", "sha256": "9f86d0", "bytes": 6120}}, {"path": "/home/u/site/theme.css", "pre": {"kind": "absent"}}, {"path": "/b.bin", "pre": {"kind": "skipped", "reason": "9 MB over the limit"}}]}]`, true},
		{"compact, string id", `[{"turn":"t-2","label":"a \"quoted\" \u00e9 label","at":5,"files":[]}]`, true},
		{"indented", "[\n  {\n    \"turn\": 3,\n    \"files\": [\n      {\"path\": \"x\", \"pre\": {\"kind\": \"absent\"}}\n    ]\n  }\n]\n", true},
		{"empty", `[]`, true},
		{"repeated files", `[{"turn":1,"files":[{"path":"a","pre":{"kind":"absent"}}],"files":[]}]`, true},
		{"unknown key", `[{"turn":1,"extra":true}]`, false},
		{"path not a string", `[{"turn":1,"files":[{"path":7,"pre":{"kind":"absent"}}]}]`, false},
		{"float at", `[{"turn":1,"at":1.5}]`, false},
		{"null label", `[{"turn":1,"label":null}]`, false},
		{"trailing garbage", `[] x`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := fastSeed([]byte(c.in))
			if ok != c.fast {
				t.Fatalf("fastSeed ok = %v, want %v", ok, c.fast)
			}
			if !ok {
				return
			}
			var want []SeedEntry
			if err := json.Unmarshal([]byte(c.in), &want); err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 && len(want) == 0 {
				return
			}
			for i := range want {
				if len(want[i].Files) == 0 {
					want[i].Files = nil
				}
				if len(got[i].Files) == 0 {
					got[i].Files = nil
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("fastSeed:\n%+v\nencoding/json:\n%+v", got, want)
			}
			for i := range want {
				if seedID(got[i].Turn) != seedID(want[i].Turn) {
					t.Errorf("turn id %q vs %q", seedID(got[i].Turn), seedID(want[i].Turn))
				}
			}
		})
	}
}
