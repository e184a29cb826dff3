package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Gemini CLI runs hooks listed in .gemini/settings.json. It parses the
// hook's standard output as JSON, so every call answers `{}`; its matchers
// are unanchored regular expressions, so ckpt's are anchored, and its
// timeouts are in milliseconds.
func init() {
	register(&adapter{
		name:  "gemini",
		parse: parseGemini,
		reply: "{}\n",
	})
}

var geminiWriteTools = map[string]bool{"write_file": true, "replace": true}

type geminiEvent struct {
	HookEventName string          `json:"hook_event_name"`
	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	Prompt        string          `json:"prompt"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
	ToolResponse  json.RawMessage `json:"tool_response"`
	Transcript    string          `json:"transcript_path"`
}

func parseGemini(data []byte, getenv func(string) string) (event, error) {
	var e geminiEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return event{}, fmt.Errorf("decode the event: %w", err)
	}
	ev := event{name: e.HookEventName, session: e.SessionID, cwd: e.Cwd, project: getenv("GEMINI_PROJECT_DIR"), transcript: e.Transcript}
	if e.HookEventName == "AfterAgent" {
		ev.do = turnEnd
		return ev, nil
	}
	if isGeminiShell(e.ToolName) {
		switch e.HookEventName {
		case "BeforeTool":
			ev.do = shellBefore
		case "AfterTool":
			ev.do = shellAfter
		}
		ev.command = shellCommand(e.ToolName, toolCommand(e.ToolInput))
		return ev, nil
	}
	switch e.HookEventName {
	case "BeforeAgent":
		ev.do, ev.text = startTurn, e.Prompt
		return ev, nil
	case "BeforeTool":
		ev.do = beforeWrite
	case "AfterTool":
		if geminiFailed(e.ToolResponse) {
			return ev, nil
		}
		ev.do = afterWrite
	default:
		return ev, nil
	}
	if !geminiWriteTools[e.ToolName] {
		ev.do = ignore
		return ev, nil
	}
	var in struct {
		FilePath     string `json:"file_path"`
		AbsolutePath string `json:"absolute_path"`
	}
	if len(e.ToolInput) > 0 {
		if err := json.Unmarshal(e.ToolInput, &in); err != nil {
			return ev, fmt.Errorf("%s %s: decode tool_input: %w", e.HookEventName, e.ToolName, err)
		}
	}
	p := in.FilePath
	if p == "" {
		p = in.AbsolutePath
	}
	if p == "" {
		return ev, fmt.Errorf("%s %s: tool_input names no file", e.HookEventName, e.ToolName)
	}
	ev.paths = []string{p}
	if e.ToolName == "replace" && !filepath.IsAbs(p) {
		base := ev.project
		if base == "" {
			base = ev.cwd
		}
		if filepath.IsAbs(base) {
			ev.paths = geminiReplaceTargets(base, p)
		}
	}
	return ev, nil
}

// geminiMaxDirs is how many folders Gemini CLI's search for a relative
// path visits (pathCorrector.ts: bfsFileSearchSync with maxDirs 50).
const geminiMaxDirs = 50

// geminiReplaceTargets resolves a relative `replace` path as Gemini CLI's
// correctPath does (packages/core/src/utils/pathCorrector.ts): the path
// under the project folder when a file is there; otherwise the one file,
// found breadth first, whose path ends with it. Where Gemini would refuse
// (no match, or several) it edits nothing, and every candidate is returned:
// capturing a file the tool leaves alone is harmless.
//
// Not mirrored: Gemini also searches the workspace's extra folders
// (--include-directories) and skips files its ignore rules hide. A file
// edited there is outside what this finds; only a sweep around the call
// would see it.
func geminiReplaceTargets(base, rel string) []string {
	direct := filepath.Join(base, rel)
	if _, err := os.Stat(direct); err == nil {
		return []string{direct}
	}
	want := filepath.ToSlash(rel)
	name := filepath.Base(rel)
	var found []string
	queue := []string{base}
	for visited := 0; len(queue) > 0 && visited < geminiMaxDirs; visited++ {
		dir := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				if n := e.Name(); n != ".git" && n != "node_modules" && n != ".osfoundry" {
					queue = append(queue, p)
				}
			case e.Name() == name && strings.HasSuffix(filepath.ToSlash(p), want):
				found = append(found, p)
			}
		}
	}
	if len(found) == 1 {
		return found
	}
	return append([]string{direct}, found...)
}

// geminiFailed reports whether a tool_response carries an error: the file
// was left as it was, and the capture stays unsealed.
func geminiFailed(resp json.RawMessage) bool {
	var r struct {
		Error json.RawMessage `json:"error"`
	}
	if len(resp) == 0 || json.Unmarshal(resp, &r) != nil {
		return false
	}
	e := bytes.TrimSpace(r.Error)
	return len(e) > 0 && !bytes.Equal(e, []byte("null")) && !bytes.Equal(e, []byte(`""`)) && !bytes.Equal(e, []byte("false"))
}

func isGeminiShell(tool string) bool {
	return tool == "run_shell_command" || strings.HasPrefix(tool, "mcp_")
}
