package store

import "testing"

// TakenOutBy maps each turn to the newest operation in effect that took
// it out, by kind: a redo follows the kind of what it redoes, a redo of
// an operation the log lacks counts as both, an operation undone counts
// for nothing; RewoundBy says what its Rewound map says.
func TestTakenOutBy(t *testing.T) {
	log := []Entry{ // newest first
		{ID: "op-6", Kind: KindRedo, Target: "op-gone", State: StateActive, Turns: []string{"1"}},
		{ID: "op-4", Kind: KindRedo, Target: "op-2", State: StateActive, Turns: []string{"2"}},
		{ID: "op-3", Kind: KindRewind, Target: "4", State: StateActive, Turns: []string{"4", "5"}},
		{ID: "op-2", Kind: KindRevert, Target: "2", State: StateActive, Turns: []string{"2"}},
		{ID: "op-1", Kind: KindRewind, Target: "5", State: StateActive, Turns: []string{"5"}},
		{ID: "5", Kind: KindAgent, State: StateRewound},
		{ID: "4", Kind: KindAgent, State: StateRewound},
		{ID: "3", Kind: KindAgent, State: StateActive},
		{ID: "2", Kind: KindAgent, State: StateReverted},
		{ID: "1", Kind: KindAgent, State: StateRewound},
	}
	got := TakenOutBy(log)
	wantRewound := map[string]string{"1": "op-6", "4": "op-3", "5": "op-3"}
	wantReverted := map[string]string{"1": "op-6", "2": "op-4"}
	same := func(what string, got, want map[string]string) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", what, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s[%s] = %q, want %q", what, k, got[k], v)
			}
		}
	}
	same("rewound", got.Rewound, wantRewound)
	same("reverted", got.Reverted, wantReverted)
	for _, turn := range []string{"1", "2", "3", "4", "5"} {
		if r := RewoundBy(log, turn); r != wantRewound[turn] {
			t.Errorf("RewoundBy(%s) = %q, want %q", turn, r, wantRewound[turn])
		}
	}
}

// A redo an undo took back stays active in the log, as every undo and
// redo does: the state of what it redid says it is not in effect, so no
// turn is rewound or reverted by it.
func TestTakenOutByARedoUndone(t *testing.T) {
	for _, kind := range []Kind{KindRewind, KindRevert} {
		log := []Entry{ // newest first: the operation, undone, redone, undone
			{ID: "op-4", Kind: KindUndo, Target: "op-1", State: StateActive, Turns: []string{"1"}},
			{ID: "op-3", Kind: KindRedo, Target: "op-1", State: StateActive, Turns: []string{"1"}},
			{ID: "op-2", Kind: KindUndo, Target: "op-1", State: StateActive, Turns: []string{"1"}},
			{ID: "op-1", Kind: kind, Target: "1", State: StateUndone, Turns: []string{"1"}},
			{ID: "1", Kind: KindAgent, State: StateActive},
		}
		if got := TakenOutBy(log); len(got.Rewound) > 0 || len(got.Reverted) > 0 {
			t.Errorf("%s undone, redone and undone: rewound %v, reverted %v; want none", kind, got.Rewound, got.Reverted)
		}
	}
}
