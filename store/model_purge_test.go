package store_test

import (
	"path"
	"slices"
	"strings"
)

// purge removes every kept copy of one path the turns hold (a secret
// that should never have been kept). From then on the model's images of
// it are purged: a rewind, undo or redo that wants one fails the path
// with the purge's reason and leaves it as it is, while every other path
// is put back exactly (the checks after every step go on doing them),
// and the steps leave the path alone.
func (h *harness) purge() {
	var cands, parents []string
	for _, t := range h.m.turns {
		for _, p := range t.paths {
			if !h.m.purged[p] && !slices.Contains(cands, p) {
				cands = append(cands, p)
			}
			for d := path.Dir(p); d != "."; d = path.Dir(d) {
				parents = append(parents, d)
			}
		}
	}
	// Not a path that was a folder of others the turns hold: a purge of
	// it would purge them too.
	cands = slices.DeleteFunc(cands, func(p string) bool { return slices.Contains(parents, p) })
	// Nor a name of a file with others: a write through another name
	// would change it after its copies are gone, while the store no
	// longer knows it for a name of that file (model_links_test.go).
	cands = slices.DeleteFunc(cands, h.inGroup)
	if len(cands) == 0 {
		h.agentTurn()
		return
	}
	slices.Sort(cands)
	p := cands[h.rng.IntN(len(cands))]
	h.logf("purge %s", p)
	res, err := h.s.Purge([]string{p})
	if err != nil {
		h.fatalf("Purge(%s): %v", p, err)
	}
	// The turns named are those whose records kept something of p: every
	// turn whose pre-image or newest seal did (an absence keeps nothing),
	// and perhaps one whose older seal did, and no other.
	var must, may []string
	for _, t := range h.m.turns {
		if !slices.Contains(t.paths, p) {
			continue
		}
		may = append(may, t.id)
		if post, ok := t.post[p]; t.pre[p].exists || ok && post.exists {
			must = append(must, t.id)
		}
	}
	for _, id := range must {
		if !slices.Contains(res.Turns, id) {
			h.fatalf("Purge(%s) names turns %v, not %s, which kept it", p, sortedCopy(res.Turns), id)
		}
	}
	for _, id := range res.Turns {
		if !slices.Contains(may, id) {
			h.fatalf("Purge(%s) names turn %s, which never captured it", p, id)
		}
	}
	if fs, err := h.s.Verify(); err != nil || len(fs) > 0 {
		h.fatalf("Verify after Purge: %v %v", fs, err)
	}
	h.m.purge(p)
	h.pool = slices.DeleteFunc(h.pool, func(q string) bool { return q == p || strings.HasPrefix(q, p+"/") })
	// The store's baseline forgot the path and the turn of its last
	// sweep: the next command's sweep runs whole.
	h.base.turn = ""
	for q := range h.base.ino {
		if q == p || strings.HasPrefix(q, p+"/") {
			delete(h.base.ino, q)
		}
	}
	for _, t := range h.m.turns {
		if slices.Contains(t.paths, p) {
			h.touched[t.id] = true
		}
	}
	h.moved = true
	h.cov["purge"]++
}
