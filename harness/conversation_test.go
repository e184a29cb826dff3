package harness

import (
	"path"
	"strings"
)

// conversation checks `ckpt show TURN --conversation` on a finished run
// of an agent whose conversation ckpt can show (spec.conversation): it
// names the harness's prompt and the mock's final reply, and lists the
// script's tool calls in order, each with its tool, its path or command,
// and ok. It returns the words for the run's summary line.
func (c *checker) conversation() string {
	c.t.Helper()
	if !c.spec.conversation {
		return "conversation: not checked"
	}
	var log []struct {
		Turn string `json:"turn"`
		Kind string `json:"kind"`
	}
	c.json(&log, "log", "--json")
	turn := ""
	for _, e := range log {
		if e.Kind == "agent" {
			turn = e.Turn
		}
	}
	var conv struct {
		Prompt string `json:"prompt"`
		Reply  string `json:"reply"`
		Calls  []struct {
			Name   string `json:"name"`
			Target string `json:"target"`
			State  string `json:"state"`
		} `json:"calls"`
	}
	c.json(&conv, "show", turn, "--conversation", "--json")
	if !strings.Contains(conv.Prompt, prompt) {
		c.fatalf("show %s --conversation: prompt %q, want it to hold %q", turn, conv.Prompt, prompt)
	}
	if !strings.Contains(conv.Reply, finalText) {
		c.fatalf("show %s --conversation: reply %q, want %q", turn, conv.Reply, finalText)
	}
	next := 0
	for _, st := range c.spec.steps {
		name, target := c.spec.toolCall(st)
		if name == "" {
			continue
		}
		found := false
		for ; next < len(conv.Calls) && !found; next++ {
			k := conv.Calls[next]
			found = k.Name == name && strings.Contains(k.Target, target) && k.State == "ok"
		}
		if !found {
			c.fatalf("show %s --conversation: no call %s %s (ok) in order among %+v", turn, name, target, conv.Calls)
		}
	}
	return "conversation: prompt, reply and tool calls shown"
}

// toolCall is the tool the mock asks the agent to call for st and the
// path or command its conversation should name; "" for a step with no
// call to show (the completion tool).
func (s agentSpec) toolCall(st step) (name, target string) {
	switch st.kind {
	case stepDone:
		return "", ""
	case stepShell:
		target = st.command
	case stepPatch:
		target = "new.txt"
	default:
		target = path.Base(st.path)
	}
	if s.call != nil {
		name, _ = s.call(&mock{}, st)
		return name, target
	}
	return map[stepKind]string{stepRead: "read", stepWrite: "write", stepEdit: "edit", stepPatch: "apply_patch", stepShell: "bash"}[st.kind], target
}
