package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// planIDLen is the length of a plan's ID in hex digits: enough that two
// plans shown to one person never share one.
const planIDLen = 16

// digest names the plan by what it does: its kind, target, turns, force,
// kept paths and retry, and per path the action, what the path holds now
// and what it will hold. Warnings and reasons are words about the plan,
// not the plan, and stay out.
func (p *Plan) digest() string {
	h := sha256.New()
	field := func(s string) {
		// Length-prefixed, so no two different plans write the same stream.
		h.Write(strconv.AppendInt(nil, int64(len(s)), 10))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	field("ckpt-plan/1")
	field(string(p.Kind))
	field(p.Target)
	field(strconv.FormatBool(p.Force))
	field(p.Retry)
	field(strings.Join(p.Turns, "\x00"))
	field(strings.Join(p.Keep, "\x00"))
	if p.Kind == KindRevert {
		field(p.Session)
		field(strconv.FormatBool(p.Markers))
	}
	for _, st := range p.Steps {
		field(st.Path)
		field(string(st.Do))
		field(imageKey(st.Now))
		field(imageKey(st.Want))
	}
	for _, k := range p.KeepHunks {
		// Only a plan that keeps hunks says so: the others keep their IDs.
		field("hunks " + hunkKey(k))
	}
	if p.Index != nil {
		// Only a plan that writes git's index says so: every other plan
		// keeps the ID it had before the index could be written.
		field("git index")
		field(imageKey(p.Index.Now))
		field(imageKey(p.Index.Want))
	}
	return hex.EncodeToString(h.Sum(nil))[:planIDLen]
}

// replan makes p's plan again from v, with the same choices (kind,
// target, kept paths and hunks, git's index, markers, force): Apply goes
// ahead only when that is the plan shown, the same ID.
func (s *Store) replan(v *view, p *Plan) (*Plan, error) {
	switch p.Kind {
	case KindRewind:
		return s.planRewindGit(v, p.Target, RewindOptions{Keep: p.Keep, GitIndex: p.GitIndex, KeepHunks: p.KeepHunks})
	case KindUndo:
		return s.planUndo(v, p.Force)
	case KindRedo:
		return s.planRedo(v, p.Force)
	case KindRevert:
		return s.planRevert(v, p.Target, RevertOptions{Session: p.Session, Markers: p.Markers, Keep: p.Keep, GitIndex: p.GitIndex, KeepHunks: p.KeepHunks})
	}
	return nil, errf("apply: unknown operation %q", p.Kind)
}

// imageKey is what an image says about the bytes and mode at a path.
func imageKey(img Image) string {
	switch img.Kind {
	case ImageContent, ImageSkipped:
		return fmt.Sprintf("%s %s %d %o", img.Kind, blobText(img.SHA256), img.Size, img.Mode)
	case ImageLink:
		return "symlink " + img.Link
	case ImageOther:
		return "other " + img.Reason
	case ImageDir:
		return fmt.Sprintf("dir %o", img.Mode)
	}
	return string(img.Kind)
}

// planChanges says, in a few words, how plan now differs from plan was.
func planChanges(was, now *Plan) string {
	var out []string
	if was.Kind != now.Kind || was.Target != now.Target {
		out = append(out, fmt.Sprintf("it is now a %s of %s", now.Kind, now.Target))
	}
	if was.Retry != now.Retry {
		switch {
		case now.Retry == "":
			out = append(out, "it is no longer a retry of "+was.Retry)
		default:
			out = append(out, "it is now a retry of "+now.Retry)
		}
	}
	if strings.Join(was.Turns, ",") != strings.Join(now.Turns, ",") {
		out = append(out, fmt.Sprintf("the turns are now %s, not %s", listOr(now.Turns), listOr(was.Turns)))
	}
	old := map[string]Step{}
	for _, st := range was.Steps {
		old[st.Path] = st
	}
	seen := map[string]bool{}
	const most = 5
	var paths []string
	for _, st := range now.Steps {
		seen[st.Path] = true
		o, ok := old[st.Path]
		switch {
		case !ok:
			paths = append(paths, st.Path+" is new to it")
		case imageKey(o.Now) != imageKey(st.Now):
			paths = append(paths, st.Path+" changed on disk")
		case imageKey(o.Want) != imageKey(st.Want) || o.Do != st.Do:
			paths = append(paths, fmt.Sprintf("%s would now %s", st.Path, st.Do))
		}
	}
	for _, st := range was.Steps {
		if !seen[st.Path] {
			paths = append(paths, st.Path+" is no longer in it")
		}
	}
	if len(paths) > most {
		paths = append(paths[:most], fmt.Sprintf("%d more paths", len(paths)-most))
	}
	out = append(out, paths...)
	if len(out) == 0 {
		return "the store or the disk changed since it was made"
	}
	return strings.Join(out, "; ")
}

func listOr(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}
