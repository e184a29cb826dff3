package store

import (
	"github.com/ckpt-dev/ckpt/store/internal/gitindex"
)

// A revert and git. A revert takes out the reverted turns' changes and
// keeps the later ones, but git's index is one file: putting it back as
// it was before the turns (--git-index) also drops what was staged after
// them. So a revert's plan says what its turns did to git (Plan.Git, from
// the first turn's start to the last one's end) and, when the index
// changed after them, which staged paths putting it back drops
// (Plan.IndexDrops). Refs are never moved: HEAD's commands are offered
// only when nothing moved HEAD after the turns.

// gitEnd is git's state as turn t ended (see gitturn.go): as its file
// last recorded it, or as it is now while t is the newest turn and has
// not ended; as it began when it recorded nothing since.
func (s *Store) gitEnd(v *view, t *turn) (head, ref string, index *Image, now bool) {
	if t == v.turns[len(v.turns)-1] && !t.ended {
		g, ok := s.gitNow()
		if !ok {
			return "", "", nil, true
		}
		return g.head, g.ref, g.index, true
	}
	if t.gitEnd != nil {
		return t.gitEnd.head, t.gitEnd.ref, t.gitEnd.index, false
	}
	return t.head, t.ref, t.index, false
}

// revertGit fills in what the reverted turns did to git, and with
// gitIndex plans putting git's index back as it was before the first of
// them.
func (s *Store) revertGit(v *view, p *Plan, gitIndex bool) error {
	if len(p.Turns) == 0 {
		return nil
	}
	first, last := v.byID[p.Turns[0]], v.byID[p.Turns[len(p.Turns)-1]]
	g, ok := openGit(s.root)
	if !ok || first.head == "" && first.index == nil {
		if gitIndex {
			_, err := s.indexStep(nil, "revert --git-index")
			return err
		}
		return nil
	}
	head, ref, index, isNow := s.gitEnd(v, last)
	c := &GitChange{FromRef: first.ref, FromCommit: first.head, ToRef: ref, ToCommit: head}
	c.IndexChanged = first.index != nil && index != nil && s.stagedDiffers(first.index, index)
	if c.FromCommit != "" && c.ToCommit != "" && c.FromCommit != c.ToCommit {
		c.Commits = commitsBetween(s.rootPath, c.FromCommit, c.ToCommit)
	}
	c.MovedHead = c.HeadMoved() // from the first one's start to the last one's end
	newest := v.turns[len(v.turns)-1]
	for _, id := range p.Turns {
		if u := v.byID[id]; u != nil {
			if _, _, changed := s.turnGit(u, u == newest); changed {
				c.Turns = append(c.Turns, id)
			}
		}
	}
	if c.HeadMoved() || c.IndexChanged {
		p.Git = c
	}
	if !isNow {
		p.HeadSince = head != gitHead(s.root) || ref != g.ref()
	}
	// What was staged after the turns: the index as they ended against
	// the index now.
	if index != nil && first.index != nil {
		if cur, err := s.indexNow(g); err == nil && cur.SHA256 != index.SHA256 {
			p.IndexDrops = s.stagedBetween(*index, g)
		}
	}
	if gitIndex {
		p.GitIndex = true
		step, err := s.indexStep(first.index, "revert --git-index")
		if err != nil {
			return err
		}
		p.Index = step
	}
	return nil
}

// stagedBetween lists the paths whose staged entries differ between the
// kept index then and git's index now; nil when either cannot be read
// (the plan then just cannot name them).
func (s *Store) stagedBetween(then Image, g gitRepo) []string {
	old, err := s.readBlobOf(then)
	if err != nil {
		return nil
	}
	cur, err := g.readFile("index")
	if err != nil {
		return nil
	}
	a, err := gitindex.Read(old)
	if err != nil {
		return nil
	}
	b, err := gitindex.Read(cur)
	if err != nil {
		return nil
	}
	changed := gitindex.Changed(a, b)
	if changed == nil {
		changed = []string{}
	}
	return changed
}
