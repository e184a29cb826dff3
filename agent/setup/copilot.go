package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// copilotEvents are the events ckpt's file lists, with their timeouts in
// seconds. VS Code has no PostToolUseFailure; Copilot CLI sends it when a
// command fails.
var copilotEvents = []struct {
	name    string
	timeout int
}{{"UserPromptSubmit", 30}, {"PreToolUse", 120}, {"PostToolUse", 120}, {"PostToolUseFailure", 120}, {"Stop", 120}}

type copilotHook struct {
	Type       string `json:"type"`
	Bash       string `json:"bash"`
	Command    string `json:"command"`
	TimeoutSec int    `json:"timeoutSec"`
	Timeout    int    `json:"timeout"`
}

func renderCopilotHooks(exe string) []byte {
	cmd := HookCommand(exe, "copilot")
	var b bytes.Buffer
	b.WriteString("{\n  \"version\": 1,\n  \"hooks\": {\n")
	for i, e := range copilotEvents {
		var h bytes.Buffer
		enc := json.NewEncoder(&h)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(copilotHook{Type: "command", Bash: cmd, Command: cmd, TimeoutSec: e.timeout, Timeout: e.timeout})
		sep := ","
		if i == len(copilotEvents)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "    %q: [%s]%s\n", e.name, bytes.TrimSpace(h.Bytes()), sep)
	}
	b.WriteString("  }\n}\n")
	return b.Bytes()
}

func findCopilotExe(data []byte) (string, bool) {
	var f struct {
		Hooks map[string][]copilotHook `json:"hooks"`
	}
	if json.Unmarshal(data, &f) != nil {
		return "", false
	}
	for _, hs := range f.Hooks {
		for _, h := range hs {
			if exe, ok := hookCommandExe(h.Bash, "copilot"); ok {
				return exe, true
			}
		}
	}
	return "", false
}
