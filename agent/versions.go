package agent

// TestedVersions are the agent versions the real-agent harness runs
// (scripts/real-agents.sh pins the same; a test keeps them in step).
// `ckpt doctor` warns about any other version.
var TestedVersions = map[string]string{
	"claude":   "2.1.328",
	"codex":    "0.171.0",
	"gemini":   "0.61.0",
	"opencode": "1.18.33",
	"pi":       "0.73.1",
	"copilot":  "1.0.102",
	"cline":    "3.0.65",
	"qwen":     "0.24.4",
}
