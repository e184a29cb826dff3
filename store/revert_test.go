package store

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ckpt-dev/ckpt/merge"
)

// The revert model: random turns of two sessions that replace lines of a
// few files, hand edits, reverts (of a turn or of a session, clean, in
// conflict, with markers), their retries, undos, redos and rewinds, each
// checked against a model that knows which lines a turn changed. The
// model decides a revert line by line, not by diffing: a turn's change is
// taken out where nothing changed its lines since, and it is a conflict
// where a later change overlaps or touches one of its runs of lines (as
// git counts them). Every line is unique, so that is what a line merge
// must find.

const (
	rmFiles = 3
	rmLines = 12
)

type rmContent []string // a file's lines, without their newlines

func (c rmContent) bytes() []byte { return []byte(strings.Join(c, "\n") + "\n") }

type rmTurn struct {
	id, session string
	at          int
	pre, post   map[string]rmContent
}

// rmOp is an operation the model has applied: what its paths held before
// and after it, and (for a revert) its turns, session and the paths it
// left in conflict.
type rmOp struct {
	kind          Kind
	at            int
	turns         []string
	session       string
	target        string // a rewind's turn
	before, after map[string]rmContent
	conflicts     map[string]bool
}

type rmModel struct {
	clock  int
	disk   map[string]rmContent
	turns  []*rmTurn
	undo   []*rmOp
	redo   []*rmOp
	values int
}

func (m *rmModel) turn(id string) *rmTurn {
	for _, t := range m.turns {
		if t.id == id {
			return t
		}
	}
	return nil
}

func (m *rmModel) rewound(id string) bool {
	for _, o := range m.undo {
		if o.kind == KindRewind && slices.Contains(o.turns, id) {
			return true
		}
	}
	return false
}

// suspended: a rewind in effect after the revert went back to before it.
func (m *rmModel) suspended(i int) bool {
	for _, w := range m.undo[i+1:] {
		if w.kind == KindRewind && m.turn(w.target).at < m.undo[i].at {
			return true
		}
	}
	return false
}

// revertOf is the revert in effect of this turn (or session), if any.
func (m *rmModel) revertOf(id, session string) *rmOp {
	for i := len(m.undo) - 1; i >= 0; i-- {
		o := m.undo[i]
		if o.kind != KindRevert || m.suspended(i) {
			continue
		}
		if session != "" && o.session == session || session == "" && o.session == "" && slices.Contains(o.turns, id) {
			return o
		}
	}
	return nil
}

func (m *rmModel) state(id string) State {
	if m.rewound(id) {
		return StateRewound
	}
	t := m.turn(id)
	in, open := false, false
	for i, o := range m.undo {
		if o.kind != KindRevert || m.suspended(i) || !slices.Contains(o.turns, id) {
			continue
		}
		in = true
		for p := range o.conflicts {
			if _, ok := t.pre[p]; ok {
				open = true
			}
		}
	}
	if in && !open {
		return StateReverted
	}
	return StateActive
}

// runs are the maximal runs [a, b) of lines where x and y differ.
func runs(x, y rmContent) [][2]int {
	var out [][2]int
	for i := 0; i < len(x); i++ {
		if x[i] == y[i] {
			continue
		}
		j := i
		for j < len(x) && x[j] != y[j] {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// takeOut is the model of one turn's change (pre → post) taken out of
// now: the result, or a conflict.
func takeOut(pre, post, now rmContent) (rmContent, bool) {
	mine, later := runs(post, pre), runs(post, now)
	for _, a := range mine {
		for _, b := range later {
			if b[0] <= a[1] && a[0] <= b[1] {
				same := a == b && slices.Equal(now[a[0]:a[1]], pre[a[0]:a[1]])
				if !same {
					return nil, true
				}
			}
		}
	}
	out := slices.Clone(now)
	for _, a := range mine {
		copy(out[a[0]:a[1]], pre[a[0]:a[1]])
	}
	return out, false
}

func TestRevertModel(t *testing.T) {
	seeds := uint64(20)
	if testing.Short() {
		seeds = 4
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runRevertModel(t, seed, 80) })
	}
}

func runRevertModel(t *testing.T, seed uint64, steps int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	root := t.TempDir()
	s := openStore(t, root)
	m := &rmModel{disk: map[string]rmContent{}}
	files := []string{"a.txt", "b.txt", "src/c.txt"}
	for i, f := range files[:rmFiles] {
		var c rmContent
		for l := range rmLines {
			c = append(c, fmt.Sprintf("%d.%d base", i, l))
		}
		m.disk[f] = c
		wr(t, root, f, string(c.bytes()))
	}
	newValue := func(who string) string {
		m.values++
		return fmt.Sprintf("%s %d", who, m.values)
	}
	nTurns := 0
	var log []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d after %s:\n"+format, append([]any{seed, strings.Join(log, "; ")}, args...)...)
	}
	for step := 0; step < steps; step++ {
		m.clock++
		switch r := rng.IntN(10); {
		case r < 4: // an agent turn of session A or B
			nTurns++
			id := fmt.Sprint(nTurns)
			session := []string{"A", "B"}[rng.IntN(2)]
			tt := &rmTurn{id: id, session: session, at: m.clock, pre: map[string]rmContent{}, post: map[string]rmContent{}}
			touched := files[:1+rng.IntN(2)]
			if rng.IntN(2) == 0 {
				touched = []string{files[rng.IntN(len(files))]}
			}
			var abs []string
			for _, f := range touched {
				abs = append(abs, filepath.Join(root, f))
			}
			if _, err := s.Capture(TurnID(id), TurnMeta{Label: "turn " + id, Source: &Source{Agent: "test", Session: session}}, abs); err != nil {
				fail("capture: %v", err)
			}
			for _, f := range touched {
				tt.pre[f] = slices.Clone(m.disk[f])
				c := slices.Clone(m.disk[f])
				at := rng.IntN(rmLines)
				for k := at; k < min(rmLines, at+1+rng.IntN(2)); k++ {
					c[k] = newValue("turn " + id)
				}
				m.disk[f], tt.post[f] = c, c
				wr(t, root, f, string(c.bytes()))
			}
			if err := s.Seal(TurnID(id), abs); err != nil {
				fail("seal: %v", err)
			}
			m.turns = append(m.turns, tt)
			log = append(log, fmt.Sprintf("turn %s (%s) %v", id, session, touched))
		case r < 5: // a hand edit
			f := files[rng.IntN(len(files))]
			c := slices.Clone(m.disk[f])
			c[rng.IntN(rmLines)] = newValue("hand")
			m.disk[f] = c
			wr(t, root, f, string(c.bytes()))
			log = append(log, "hand "+f)
		case r < 8 && len(m.turns) > 0: // a revert
			tt := m.turns[rng.IntN(len(m.turns))]
			session := ""
			if rng.IntN(4) == 0 {
				session = tt.session
			}
			markers := rng.IntN(3) == 0
			m.revert(t, s, root, tt, session, markers, fail, &log)
		case r < 9 && len(m.undo) > 0: // undo
			m.undoRedo(t, s, root, true, fail, &log)
		case r < 10 && len(m.redo) > 0 && rng.IntN(2) == 0:
			m.undoRedo(t, s, root, false, fail, &log)
		case len(m.turns) > 0 && rng.IntN(3) == 0: // a rewind
			tt := m.turns[rng.IntN(len(m.turns))]
			if m.rewound(tt.id) {
				continue
			}
			m.rewind(t, s, root, tt, fail, &log)
		}
		for _, f := range files {
			got, err := os.ReadFile(filepath.Join(root, f))
			if err != nil || string(got) != string(m.disk[f].bytes()) {
				fail("%s holds\n%s\nwant\n%s", f, got, m.disk[f].bytes())
			}
		}
		es, err := s.Log(false)
		if err != nil {
			fail("log: %v", err)
		}
		for _, e := range es {
			if e.Kind == KindAgent {
				if want := m.state(e.ID); e.State != want {
					fail("turn %s is %s, want %s", e.ID, e.State, want)
				}
			}
		}
	}
}

// revert plans and applies a revert of tt (or of its session), checking
// the plan against the model first.
func (m *rmModel) revert(t *testing.T, s *Store, root string, tt *rmTurn, session string, markers bool, fail func(string, ...any), log *[]string) {
	t.Helper()
	what := "revert " + tt.id
	if session != "" {
		what = "revert session " + session
	}
	*log = append(*log, fmt.Sprintf("%s markers=%v", what, markers))
	var turns []*rmTurn
	for _, x := range m.turns {
		if (session == "" && x == tt || session != "" && x.session == session) && !m.rewound(x.id) {
			turns = append(turns, x)
		}
	}
	prior := m.revertOf(tt.id, session)
	var only map[string]bool
	if prior != nil {
		if len(prior.conflicts) == 0 {
			_, err := s.PlanRevert(tt.id, RevertOptions{Session: session, Markers: markers})
			if !errors.Is(err, ErrReverted) {
				fail("%s: want ErrReverted, got %v", what, err)
			}
			return
		}
		only = prior.conflicts
		turns = turns[:0]
		for _, id := range prior.turns {
			turns = append(turns, m.turn(id))
		}
	}
	if session != "" && prior == nil {
		// The model does not chain a session's turns over reverts of its
		// own turns one by one; leave those out.
		for _, x := range turns {
			if m.revertOf(x.id, "") != nil {
				return
			}
		}
	}
	id := tt.id
	if session != "" {
		id = ""
	}
	if len(turns) == 0 || session == "" && m.rewound(tt.id) {
		if _, err := s.PlanRevert(id, RevertOptions{Session: session, Markers: markers}); err == nil {
			fail("%s of a rewound turn: planned", what)
		}
		return
	}
	op := &rmOp{kind: KindRevert, at: m.clock, session: session, before: map[string]rmContent{}, after: map[string]rmContent{}, conflicts: map[string]bool{}}
	for _, x := range turns {
		op.turns = append(op.turns, x.id)
	}
	var paths []string
	for _, x := range turns {
		for p := range x.pre {
			if !slices.Contains(paths, p) && (only == nil || only[p]) {
				paths = append(paths, p)
			}
		}
	}
	slices.Sort(paths)
	good := 0
	marked := map[string]bool{}
	label := "turn " + op.turns[len(op.turns)-1]
	if len(op.turns) > 1 {
		label = "turns " + strings.Join(op.turns, ",")
	}
	for _, p := range paths {
		now := m.disk[p]
		cur, conflict := now, false
		var mine []*rmTurn // newest first
		for i := len(turns) - 1; i >= 0; i-- {
			if _, ok := turns[i].pre[p]; ok {
				mine = append(mine, turns[i])
			}
		}
		for _, x := range mine {
			if cur, conflict = takeOut(x.pre[p], x.post[p], cur); conflict {
				break
			}
		}
		pre, post := mine[len(mine)-1].pre[p], mine[0].post[p]
		if conflict && len(mine) > 1 {
			cur, conflict = takeOut(pre, post, now)
		}
		switch {
		case conflict && markers:
			r := merge.Merge(post.bytes(), now.bytes(), pre.bytes(), merge.Options{Ours: "now", Base: label, Theirs: "before " + label})
			cur = strings.Split(strings.TrimSuffix(string(r.Bytes), "\n"), "\n")
			op.before[p], op.after[p] = now, cur
			marked[p] = true
			good++
		case conflict:
			op.conflicts[p] = true
			continue
		default:
			op.before[p], op.after[p] = now, cur
			good++
		}
	}
	p, err := s.PlanRevert(id, RevertOptions{Session: session, Markers: markers})
	if err != nil {
		fail("%s: %v", what, err)
	}
	for _, st := range p.Steps {
		if conflicted := st.Do == ActFail && st.Conflicts != nil; conflicted != op.conflicts[st.Path] {
			fail("%s: %s is %s (%s), the model says conflict %v", what, st.Path, st.Do, st.Reason, op.conflicts[st.Path])
		}
	}
	if len(p.Steps) != len(paths) {
		fail("%s: %d steps, the model has %d paths %v", what, len(p.Steps), len(paths), paths)
	}
	res, err := s.Apply(p, nil)
	if err != nil {
		fail("%s: apply: %v", what, err)
	}
	if len(res.Conflicts) != 0 && !markers && len(res.Failed) == 0 {
		fail("%s: conflicts %v but nothing failed", what, res.Conflicts)
	}
	for path, c := range op.after {
		m.disk[path] = c
	}
	// A file written with markers is resolved by hand at once, keeping
	// the lines as they were: the model's files keep their lines.
	for path := range marked {
		got, err := os.ReadFile(filepath.Join(root, path))
		if err != nil || string(got) != string(op.after[path].bytes()) {
			fail("%s: %s holds\n%s\nwant the markers\n%s", what, path, got, op.after[path].bytes())
		}
		m.disk[path] = op.before[path]
		wr(t, root, path, string(op.before[path].bytes()))
	}
	if good == 0 {
		return // every path in conflict: it changed nothing and moves no stack
	}
	if prior != nil {
		prior.conflicts = map[string]bool{}
	}
	m.undo = append(m.undo, op)
	m.redo = nil
}

func (m *rmModel) undoRedo(t *testing.T, s *Store, root string, undo bool, fail func(string, ...any), log *[]string) {
	t.Helper()
	stack := &m.undo
	what := "undo"
	if !undo {
		stack, what = &m.redo, "redo"
	}
	o := (*stack)[len(*stack)-1]
	*log = append(*log, fmt.Sprintf("%s of %s %v", what, o.kind, o.turns))
	plan := s.PlanUndo
	if !undo {
		plan = s.PlanRedo
	}
	newer := false
	for _, x := range m.turns {
		for p := range x.pre {
			if _, ok := o.before[p]; ok && x.at > o.at && !m.rewound(x.id) {
				newer = true
			}
		}
	}
	p, err := plan(false)
	if newer {
		if !errors.Is(err, ErrNewerTurn) {
			fail("%s: a newer turn wrote its paths, want ErrNewerTurn, got %v", what, err)
		}
		return
	}
	if err != nil {
		fail("%s: %v", what, err)
	}
	if _, err := s.Apply(p, nil); err != nil {
		fail("%s: apply: %v", what, err)
	}
	*stack = (*stack)[:len(*stack)-1]
	set := o.before
	if !undo {
		set = o.after
		for path := range o.after {
			o.before[path] = m.disk[path] // what the redo found, as its undo gives back
		}
		m.undo = append(m.undo, o)
	} else {
		m.redo = append(m.redo, o)
	}
	for path, c := range set {
		m.disk[path] = c
	}
	o.at = m.clock
}

// rewind goes back to before tt: each path a turn from tt on, or a revert
// since tt began, changed gets what it held before the first of them.
func (m *rmModel) rewind(t *testing.T, s *Store, root string, tt *rmTurn, fail func(string, ...any), log *[]string) {
	t.Helper()
	*log = append(*log, "rewind "+tt.id)
	op := &rmOp{kind: KindRewind, at: m.clock, target: tt.id, before: map[string]rmContent{}, after: map[string]rmContent{}}
	first := map[string]int{}
	for _, x := range m.turns {
		if x.at < tt.at || m.rewound(x.id) {
			continue
		}
		op.turns = append(op.turns, x.id)
		for p, c := range x.pre {
			if at, ok := first[p]; !ok || x.at < at {
				first[p], op.after[p] = x.at, c
			}
		}
	}
	for i, o := range m.undo {
		if o.kind != KindRevert || m.suspended(i) || o.at < tt.at {
			continue
		}
		for p, c := range o.before {
			if slices.Equal(c, o.after[p]) {
				continue // left as it was: the revert wrote nothing there
			}
			if at, ok := first[p]; !ok || o.at < at {
				first[p], op.after[p] = o.at, c
			}
		}
	}
	p, err := s.PlanRewind(tt.id)
	if err != nil {
		fail("rewind %s: %v", tt.id, err)
	}
	if _, err := s.Apply(p, nil); err != nil {
		fail("rewind %s: apply: %v", tt.id, err)
	}
	for path, c := range op.after {
		op.before[path] = m.disk[path]
		m.disk[path] = c
	}
	m.undo = append(m.undo, op)
	m.redo = nil
}

// TestRevertSharedChange: what changed while commands of two sessions ran
// is owned by neither alone, and File.Shared and a revert read that from
// the one place: a revert of either turn leaves such a path as it is, as
// a conflict naming the other turn, and takes out what was its own.
func TestRevertSharedChange(t *testing.T) {
	root, s, a, b, _ := twoRunning(t)
	if _, err := s.SweepBefore(b, TurnMeta{}, "sed -i y.txt"); err != nil {
		t.Fatal(err)
	}
	put(t, root, "y.txt", "y by one of them\n", 0o644)
	if _, err := s.SweepAfter(a, TurnMeta{}, "make gen"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SweepAfter(b, TurnMeta{}, "sed -i y.txt"); err != nil {
		t.Fatal(err)
	}
	files, err := s.Files(string(a), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if want := map[string][]string{"y.txt": {string(b)}}[f.Path]; !slices.Equal(f.Shared, want) {
			t.Errorf("turn %s, %s: shared with %v, want %v", a, f.Path, f.Shared, want)
		}
	}
	for _, c := range []struct{ turn, other string }{{string(a), string(b)}, {string(b), string(a)}} {
		p, err := s.PlanRevert(c.turn, RevertOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var st *Step
		for i := range p.Steps {
			if p.Steps[i].Path == "y.txt" {
				st = &p.Steps[i]
			}
		}
		if st == nil || st.Do != ActFail || st.Conflicts == nil || !strings.Contains(st.Reason, "turn "+c.other+"'s too") {
			t.Fatalf("revert %s, y.txt: %+v; want a conflict naming turn %s", c.turn, st, c.other)
		}
		r := p.Result()
		if !slices.ContainsFunc(r.Conflicts, func(x Conflict) bool { return x.Path == "y.txt" }) {
			t.Errorf("revert %s: y.txt not among the conflicts %v", c.turn, r.Conflicts)
		}
	}
	res, err := s.Apply(mustPlanRevert(t, s, string(a)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failed) != 1 || res.Failed[0].Path != "y.txt" {
		t.Fatalf("revert %s failed %v; want just y.txt", a, res.Failed)
	}
	if got := rd(t, root, "x.txt"); got != "x.txt before\n" {
		t.Errorf("x.txt, A's alone, after the revert: %q", got)
	}
	if got := rd(t, root, "y.txt"); got != "y by one of them\n" {
		t.Errorf("y.txt, shared, was changed: %q", got)
	}
}

func mustPlanRevert(t *testing.T, s *Store, turn string) *Plan {
	t.Helper()
	p, err := s.PlanRevert(turn, RevertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
