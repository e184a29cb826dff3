package present

import "strings"

// Git is what turns did to git, as the CLI and the UI put it: where HEAD
// pointed before them (FromRef, FromCommit; ref "" when detached) and now,
// the commits made (-1: git could not count them), whether the index
// changed.
type Git struct {
	FromRef, FromCommit string
	ToRef, ToCommit     string
	Commits             int
	IndexChanged        bool
	MovedHead           bool     // a turn moved HEAD (else HEAD moved between turns)
	Turns               []string // the turns that changed git
}

func (g Git) headMoved() bool { return g.FromRef != g.ToRef || g.FromCommit != g.ToCommit }

// Lead names the turns that changed git: "turn 3 ran git", "turns 3 and
// 5 ran git".
func (g Git) Lead() string {
	ids := make([]string, len(g.Turns))
	for i, t := range g.Turns {
		ids[i] = Escape(t)
	}
	switch len(ids) {
	case 0:
		return "the turns ran git"
	case 1:
		return "turn " + ids[0] + " ran git"
	}
	return "turns " + strings.Join(ids[:len(ids)-1], ", ") + " and " + ids[len(ids)-1] + " ran git"
}

// Words says in a line what the turns did: "HEAD moved main→feature, 2
// commits, the index changed". HEAD is said to have moved (from before
// the turns to now) only when one of them moved it.
func (g Git) Words() string {
	var parts []string
	if g.headMoved() && g.MovedHead {
		parts = append(parts, "HEAD moved "+headName(g.FromRef, g.FromCommit, g.ToRef)+"→"+headName(g.ToRef, g.ToCommit, g.FromRef))
	}
	switch {
	case g.Commits > 0:
		parts = append(parts, Count(g.Commits, "commit"))
	case g.Commits < 0:
		parts = append(parts, "commits git could not count")
	}
	if g.IndexChanged {
		parts = append(parts, "the index changed")
	}
	return strings.Join(parts, ", ")
}

// Commands are the git commands a person would run to put HEAD back where
// it was before the turns: ckpt never moves refs, and the commits stay
// reachable through the reflog.
func (g Git) Commands() []string {
	if !g.headMoved() || g.FromCommit == "" {
		return nil
	}
	switch {
	case g.FromRef != g.ToRef && g.FromRef != "":
		return []string{"git switch " + branch(g.FromRef)}
	case g.FromRef == "":
		return []string{"git switch --detach " + shortCommit(g.FromCommit)}
	}
	return []string{"git reset --soft " + shortCommit(g.FromCommit)}
}

func branch(ref string) string { return strings.TrimPrefix(ref, "refs/heads/") }

func shortCommit(c string) string {
	if len(c) > 8 {
		return c[:8]
	}
	return c
}

// headName names where HEAD pointed: its branch when the branches differ,
// else the commit.
func headName(ref, commit, other string) string {
	if ref != "" && ref != other {
		return branch(ref)
	}
	if commit == "" {
		return "no commit"
	}
	return shortCommit(commit)
}
