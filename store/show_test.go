package store

import (
	"errors"
	"reflect"
	"testing"
)

// Show says of each turn and operation what Log, Files and RewoundBy say
// of it, from one load: a rewound turn names its rewind, an active one
// none, and an unknown id is ErrUnknownTurn.
func TestShowMatchesLogAndFiles(t *testing.T) {
	root := t.TempDir()
	wr(t, root, "a.txt", "a0")
	wr(t, root, "b.txt", "b0")
	s := openStore(t, root)
	agentTurn(t, s, "1", map[string]string{"a.txt": "a1"})
	agentTurn(t, s, "2", map[string]string{"a.txt": "a2", "b.txt": "b2"})
	agentTurn(t, s, "3", map[string]string{"b.txt": "b3"})
	rewind(t, s, "3")
	wr(t, root, "a.txt", "by hand")
	es, err := s.Log(false)
	if err != nil {
		t.Fatal(err)
	}
	rewound := 0
	for _, e := range es {
		got, err := s.Show(e.ID, true)
		if err != nil {
			t.Fatalf("show %s: %v", e.ID, err)
		}
		if !reflect.DeepEqual(got.Entry, e) {
			t.Errorf("show %s: entry\n%+v\nlog says\n%+v", e.ID, got.Entry, e)
		}
		files, err := s.Files(e.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Files, files) {
			t.Errorf("show %s: files\n%+v\nFiles says\n%+v", e.ID, got.Files, files)
		}
		if want := RewoundBy(es, e.ID); got.RewoundBy != want {
			t.Errorf("show %s: rewound by %q, want %q", e.ID, got.RewoundBy, want)
		}
		if got.RewoundBy != "" {
			rewound++
		}
	}
	if rewound != 1 {
		t.Errorf("%d turns shown as rewound, want turn 3 alone", rewound)
	}
	if _, err := s.Show("9", true); !errors.Is(err, ErrUnknownTurn) {
		t.Errorf("show of an unknown turn: %v", err)
	}
}
