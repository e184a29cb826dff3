package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
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
	if os.Getenv("CKPT_HARNESS_RECORD") != "" {
		c.keepTranscript()
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
			found = slices.Contains(strings.Split(name, "|"), k.Name) && strings.Contains(k.Target, target) && k.State == "ok"
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
	switch {
	case s.call != nil:
		name, _ = s.call(&mock{}, st)
	case s.tools != nil:
		name = s.tools[st.kind]
	default:
		name = map[stepKind]string{stepRead: "read", stepWrite: "write", stepEdit: "edit", stepPatch: "apply_patch", stepShell: "bash"}[st.kind]
	}
	return name, target
}

// keepTranscript writes the transcript the agent kept for the run's
// turn to transcript/testdata/AGENT-real.jsonl (AGENT-real-VARIANT.jsonl),
// trimmed: the run's folders renamed as anonymise does ({{ROOT}} as
// /home/user/project), every string over maxKept bytes and every list
// over maxItems cut (system prompts, instructions, tool schemas), each
// line re-encoded.
func (c *checker) keepTranscript() {
	c.t.Helper()
	var log []struct {
		Source *struct {
			Transcript string `json:"transcript"`
		} `json:"source"`
	}
	c.json(&log, "log", "--json")
	if len(log) == 0 || log[len(log)-1].Source == nil || log[len(log)-1].Source.Transcript == "" {
		c.t.Logf("HARNESS %s: no transcript named by the hooks: none kept", c.name)
		return
	}
	src := log[len(log)-1].Source.Transcript
	data, err := os.ReadFile(src)
	if err != nil {
		c.fatalf("the transcript the hooks named: %v", err)
	}
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(anonymise(data, c.r.dir)), []byte("\n")) {
		var v any
		if json.Unmarshal(line, &v) != nil {
			out.Write(line) // kept as it is: the parser's test reads it so
		} else {
			b, _ := json.Marshal(trimStrings(v))
			out.Write(b)
		}
		out.WriteByte('\n')
	}
	kept := bytes.ReplaceAll(out.Bytes(), []byte("{{ROOT}}"), []byte("/home/user/project"))
	name := c.name + "-real"
	if c.spec.variant != "" {
		name += "-" + c.spec.variant
	}
	dst := filepath.Join("..", "transcript", "testdata", name+".jsonl")
	if err := os.WriteFile(dst, kept, 0o644); err != nil {
		c.fatalf("keep the transcript: %v", err)
	}
	c.t.Logf("kept %s (%d bytes) from %s", dst, len(kept), src)
}

// maxKept is the longest string a kept transcript holds whole, maxItems
// the longest list (lists of tools and skills).
const (
	maxKept  = 400
	maxItems = 8
)

// trimStrings cuts every string in v over maxKept bytes, and every list
// over maxItems items (the rest said in a string).
func trimStrings(v any) any {
	switch x := v.(type) {
	case string:
		if len(x) > maxKept {
			cut := maxKept
			for cut > 0 && !utf8.RuneStart(x[cut]) {
				cut--
			}
			return x[:cut] + fmt.Sprintf("… (%d bytes cut)", len(x)-cut)
		}
	case []any:
		if len(x) > maxItems {
			x = append(x[:maxItems:maxItems], fmt.Sprintf("… (%d more cut)", len(x)-maxItems))
		}
		for i := range x {
			x[i] = trimStrings(x[i])
		}
		return x
	case map[string]any:
		for k := range x {
			x[k] = trimStrings(x[k])
		}
	}
	return v
}
