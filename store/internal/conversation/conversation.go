// Package conversation is the codec of a turn's conversation file,
// conversations/<turn>.json: what an agent that keeps no transcript ckpt
// can read (opencode, pi) was asked and said in the turn, as its plugin's
// events told the hook.
//
// The file is one JSON object,
//
//	{"v":1,"prompt":"…","reply":"…","calls":[{"name":"write","target":"a.txt","state":"ok"}]}
//
// with "state" "ok", "failed" or absent (no result seen). It is written
// whole and renamed into place, so a reader sees the old file or the new
// one. Texts are cut to MaxText bytes, names and targets to MaxName and
// MaxTarget, calls to MaxCalls, the file to MaxFile: whatever an agent's
// events hold, the file stays small to read. It is for showing only: a
// missing or damaged file costs the conversation view, never the turn.
package conversation

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/store/internal/format"
)

// Version is the newest version of the file this ckpt reads, and the one
// it writes.
const Version = 1

// Limits on what a conversation file keeps.
const (
	MaxText   = 64 << 10 // a prompt or reply
	MaxName   = 200      // a tool's name
	MaxTarget = 4096     // a call's path or command
	MaxCalls  = 2000     // calls kept: the first ones
	MaxFile   = 1 << 20  // a file larger than this is not read
)

// Call states.
const (
	StateOK     = "ok"
	StateFailed = "failed"
)

// Call is one tool call of the turn.
type Call struct {
	Name   string `json:"name"`
	Target string `json:"target,omitempty"` // the path or command it named
	State  string `json:"state,omitempty"`  // StateOK, StateFailed, or "" (no result seen)
}

// Turn is what was asked and said in one turn.
type Turn struct {
	Prompt string `json:"prompt,omitempty"`
	Reply  string `json:"reply,omitempty"` // the agent's last text
	Calls  []Call `json:"calls,omitempty"` // in the order they were made
	// Dropped counts the calls made after those kept (past MaxCalls, or
	// past what fits in MaxFile).
	Dropped int `json:"dropped,omitempty"`
}

type file struct {
	V int `json:"v"`
	Turn
}

// Merge is t with what u adds: u's prompt, reply and calls where it has
// them, t's where it has none (an end-of-turn event that names no prompt
// keeps the one the prompt event gave).
func (t Turn) Merge(u Turn) Turn {
	if u.Prompt != "" {
		t.Prompt = u.Prompt
	}
	if u.Reply != "" {
		t.Reply = u.Reply
	}
	if len(u.Calls) > 0 || u.Dropped > 0 {
		t.Calls, t.Dropped = u.Calls, u.Dropped
	}
	return t
}

// Encode is t as the file holds it, cut to the limits: past MaxFile, the
// later calls go (counted in Dropped) until it fits. The prompt and the
// reply always fit: escaped, each is at most six times MaxText.
func Encode(t Turn) []byte {
	t = bound(t)
	for {
		data, err := json.Marshal(file{V: Version, Turn: t})
		if err != nil {
			// Strings, a number and a slice of them: Marshal cannot fail.
			panic(fmt.Sprintf("conversation: encode: %v", err))
		}
		if len(data) < MaxFile || len(t.Calls) == 0 {
			return append(data, '\n')
		}
		keep := len(t.Calls) / 2
		t.Dropped += len(t.Calls) - keep
		t.Calls = t.Calls[:keep]
	}
}

// Decode reads a conversation file's bytes; name is the file as shown to
// the user. A file of a newer version is refused (ErrNewerFormat); one
// that is not the shape above is damaged (ErrCorrupt).
func Decode(name string, data []byte) (Turn, error) {
	if len(data) > MaxFile {
		return Turn{}, fmt.Errorf("%s: %w: %d bytes, more than a conversation file holds", name, format.ErrCorrupt, len(data))
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return Turn{}, fmt.Errorf("%s: %w: %v", name, format.ErrCorrupt, err)
	}
	if f.V < 1 {
		return Turn{}, fmt.Errorf("%s: %w: no version", name, format.ErrCorrupt)
	}
	if err := format.CheckVersion(name, "conversation format", f.V, Version); err != nil {
		return Turn{}, err
	}
	return bound(f.Turn), nil
}

// bound cuts t to the limits, and makes every string valid UTF-8.
func bound(t Turn) Turn {
	t.Prompt, t.Reply = cut(t.Prompt, MaxText), cut(t.Reply, MaxText)
	if len(t.Calls) > MaxCalls {
		t.Dropped += len(t.Calls) - MaxCalls
		t.Calls = t.Calls[:MaxCalls]
	}
	t.Dropped = max(t.Dropped, 0)
	calls := make([]Call, 0, len(t.Calls))
	for _, c := range t.Calls {
		c.Name, c.Target = cut(c.Name, MaxName), cut(c.Target, MaxTarget)
		if c.State != StateOK && c.State != StateFailed {
			c.State = ""
		}
		calls = append(calls, c)
	}
	if len(calls) == 0 {
		calls = nil
	}
	t.Calls = calls
	return t
}

// cut is s as valid UTF-8, at most n bytes (on a rune boundary, ending
// "…" when cut).
func cut(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
