package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/ckpt-dev/ckpt/agent"
	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
	"github.com/ckpt-dev/ckpt/transcript"
)

// conversationOf reads turn's conversation: the one its agent's plugin
// events brought, which the store keeps (opencode, pi), else the
// transcript its agent named. The error says why there is none, naming
// the file.
func conversationOf(s *store.Store, e store.Entry) (*transcript.Conversation, error) {
	kept, file, err := s.ConversationOf(e.ID)
	switch {
	case err == nil:
		return fromEvents(e, kept, file), nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("turn %s: its conversation: %w", esc(e.ID), err)
	}
	src := e.Source
	switch {
	case src == nil || src.Agent == "":
		return nil, fmt.Errorf("turn %s came from no agent's hook, so there is no transcript to read", esc(e.ID))
	case agent.SaysInEvents(src.Agent):
		return nil, fmt.Errorf("turn %s: %s's events brought no conversation for it (%s holds none: a turn recorded before ckpt kept them, or one whose prompt ckpt's plugin did not see)", esc(e.ID), esc(src.Agent), esc(file))
	case src.Transcript == "":
		return nil, fmt.Errorf("turn %s: %s named no transcript for it (a store written before ckpt kept them, or an agent that keeps none)", esc(e.ID), esc(src.Agent))
	case !transcript.Readable(src.Agent):
		return nil, fmt.Errorf("turn %s: ckpt cannot read %s's transcripts yet", esc(e.ID), esc(src.Agent))
	}
	return transcript.Read(src.Agent, src.Transcript, transcript.Want{PromptID: src.Prompt, Label: e.Label, At: e.At})
}

// fromEvents is a conversation the store kept, as a transcript's.
func fromEvents(e store.Entry, c *store.Conversation, file string) *transcript.Conversation {
	out := &transcript.Conversation{Path: file, Dropped: c.Dropped}
	if e.Source != nil {
		out.Agent = e.Source.Agent
	}
	out.Prompt, out.Reply = c.Prompt, c.Reply
	for _, k := range c.Calls {
		out.Calls = append(out.Calls, transcript.Call{Name: k.Name, Target: k.Target, State: transcript.State(k.State)})
	}
	return out
}

// turnEntry is the log entry of turn.
func turnEntry(s *store.Store, turn string) (store.Entry, error) {
	entries, err := s.Log(false)
	if err != nil {
		return store.Entry{}, err
	}
	for _, e := range entries {
		if e.ID == turn {
			return e, nil
		}
	}
	return store.Entry{}, fmt.Errorf("turn %s: %w", esc(turn), store.ErrUnknownTurn)
}

// conversationJSON is `show --conversation --json`.
type conversationJSON struct {
	Turn       string     `json:"turn"`
	TurnB64    string     `json:"turn_b64,omitempty"`
	Agent      string     `json:"agent"`
	Transcript string     `json:"transcript"`
	Prompt     string     `json:"prompt"`
	Reply      string     `json:"reply"`
	Calls      []callJSON `json:"calls"`
	Skipped    int        `json:"skipped_lines,omitempty"`
	Truncated  bool       `json:"truncated,omitempty"`
	Dropped    int        `json:"calls_not_kept,omitempty"`
}

type callJSON struct {
	Name   string `json:"name"`
	Target string `json:"target,omitempty"`
	State  string `json:"state"` // ok, failed, unknown
}

func callState(st transcript.State) string {
	if st == transcript.StateUnknown {
		return "unknown"
	}
	return string(st)
}

// printConversation writes turn's prompt, reply and tool calls.
func printConversation(s *store.Store, turn string, asJSON bool) error {
	e, err := turnEntry(s, turn)
	if err != nil {
		return err
	}
	c, err := conversationOf(s, e)
	if err != nil {
		return err
	}
	if asJSON {
		out := conversationJSON{Turn: e.ID, TurnB64: nameB64(e.ID), Agent: c.Agent, Transcript: c.Path, Prompt: c.Prompt, Reply: c.Reply,
			Calls: []callJSON{}, Skipped: c.Skipped, Truncated: c.Truncated, Dropped: c.Dropped}
		for _, k := range c.Calls {
			out.Calls = append(out.Calls, callJSON{Name: k.Name, Target: k.Target, State: callState(k.State)})
		}
		return printJSON(out)
	}
	p := paint(autoColor(os.Stdout))
	printHeader(p, e)
	fmt.Println(p.in(sgrBold, "prompt"))
	fmt.Println(indentText(c.Prompt))
	fmt.Println(p.in(sgrBold, "reply"))
	if c.Reply == "" {
		fmt.Println("  (none yet)")
	} else {
		fmt.Println(indentText(c.Reply))
	}
	fmt.Printf("%s (%d)\n", p.in(sgrBold, "tool calls"), len(c.Calls))
	width := 0
	for _, k := range c.Calls {
		width = max(width, len(esc(k.Name)))
	}
	for _, k := range c.Calls {
		mark, col := "ok", sgrGreen
		switch k.State {
		case transcript.StateFailed:
			mark, col = "failed", sgrRed
		case transcript.StateUnknown:
			mark, col = "?", sgrYellow
		}
		fmt.Printf("  %s %s  %s\n", p.in(col, pad(mark, 6)), pad(esc(k.Name), width), esc(underRoot(s.Root(), k.Target)))
	}
	note := "from " + esc(c.Path)
	if agent.SaysInEvents(c.Agent) {
		note = "from " + esc(c.Agent) + "'s events, kept in " + esc(underRoot(s.Root(), c.Path))
	}
	if c.Truncated {
		note += fmt.Sprintf(" (its last %s only)", present.Bytes(transcript.MaxRead))
	}
	if c.Skipped > 0 {
		note += fmt.Sprintf(" (%s could not be read)", present.Count(c.Skipped, "line"))
	}
	if c.Dropped > 0 {
		note += fmt.Sprintf(" (%s after these not kept)", present.Count(c.Dropped, "call"))
	}
	fmt.Println(p.in(sgrDim, note))
	return nil
}

// indentText is a text of several lines, each escaped and indented.
func indentText(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + esc(l)
	}
	return strings.Join(lines, "\n")
}

// underRoot shows a path inside the project relative to its root, as
// every other path ckpt prints; anything else is left as it is.
func underRoot(root, target string) string {
	if rel, ok := strings.CutPrefix(target, strings.TrimSuffix(root, "/")+"/"); ok && rel != "" {
		return rel
	}
	return target
}
