package setup

// installers is each agent's project config, by the agent's name (see
// agent.Agents): where its hooks go and how they are written. The
// matchers select the tools the agent's adapter (package agent) reads:
// its file tools, its shell and MCP tools.
var installers = map[string]installer{
	// Claude Code: shell and MCP calls are swept around; the first sweep of
	// a project reads every file, hence the longer timeouts.
	"claude": jsonInstaller{
		file:  ".claude/settings.local.json",
		hooks: claudeHooks(claudeMatcher, shellMatcher, inSeconds),
	},
	// Gemini CLI: matchers are unanchored regular expressions, so ckpt's
	// are anchored; timeouts in milliseconds.
	"gemini": jsonInstaller{
		file:  ".gemini/settings.json",
		jsonc: true, // Gemini CLI allows comments in its settings
		hooks: []hookSpec{
			{event: "BeforeAgent", name: "ckpt-turn", timeout: 30000},
			{event: "BeforeTool", matcher: geminiMatcher, name: "ckpt-pre", timeout: 120000},
			{event: "AfterTool", matcher: geminiMatcher, name: "ckpt-post", timeout: 120000},
			{event: "AfterAgent", name: "ckpt-turn-end", timeout: 120000},
		},
	},
	// Codex CLI: Claude Code's shape, loaded for trusted projects.
	"codex": jsonInstaller{
		file:  ".codex/hooks.json",
		hooks: claudeHooks(codexMatcher, "", inSeconds),
	},
	// opencode: a plugin of ckpt's own (opencode.go).
	"opencode": ownedInstaller{
		file:   ".opencode/plugins/ckpt.ts",
		render: renderPlugin,
		find:   findConstCKPT,
		past:   []string{pastPluginFirst, pastPluginShell, pastPluginNode},
	},
	// pi: an extension of ckpt's own (pi.go).
	"pi": ownedInstaller{
		file:   ".pi/extensions/ckpt.ts",
		render: renderPiExtension,
		find:   findConstCKPT,
		past:   []string{pastExtensionFirst},
	},
	// Copilot CLI and VS Code's agent: one hooks file of ckpt's own
	// (copilot.go).
	"copilot": ownedInstaller{
		file:   ".github/hooks/ckpt.json",
		render: renderCopilotHooks,
		find:   findCopilotExe,
	},
	// Cline: an executable script per event (cline.go).
	"cline": clineInstaller(),
	// Qwen Code: Claude's shape in a settings file that allows comments;
	// timeouts in milliseconds; matchers tried whole.
	"qwen": jsonInstaller{
		file:  ".qwen/settings.json",
		jsonc: true,
		hooks: claudeHooks(qwenMatcher, qwenShellMatcher, inMilliseconds),
	},
	// Kilo CLI: opencode's plugin, from Kilo's folder (opencode.go).
	"kilo": ownedInstaller{
		file:   ".kilo/plugins/ckpt.ts",
		render: renderKiloPlugin,
		find:   findConstCKPT,
		past:   []string{pastKiloNode},
	},
	// Droid: Claude's shape; timeouts in seconds.
	"droid": jsonInstaller{
		file:  ".factory/hooks.json",
		hooks: claudeHooks(droidMatcher, "", inSeconds),
	},
	// Cursor: {"version": 1, "hooks": {EVENT: [{"command": C}]}}; the
	// prompt event sweeps, as its file event comes after the write.
	"cursor": jsonInstaller{
		file:    ".cursor/hooks.json",
		flat:    true,
		version: 1,
		hooks: []hookSpec{
			{event: "beforeSubmitPrompt"},
			{event: "afterFileEdit"},
			{event: "beforeShellExecution"},
			{event: "afterShellExecution"},
			{event: "stop"},
		},
	},
	// Windsurf's Cascade: {"hooks": {EVENT: [{"command": C}]}}.
	"windsurf": jsonInstaller{
		file: ".windsurf/hooks.json",
		flat: true,
		hooks: []hookSpec{
			{event: "pre_user_prompt"},
			{event: "pre_write_code"},
			{event: "post_write_code"},
			{event: "pre_run_command"},
			{event: "post_run_command"},
			{event: "post_cascade_response"},
		},
	},
}

// Timeout units: how many of an agent's timeout unit make a second.
const (
	inSeconds      = 1
	inMilliseconds = 1000
)

// claudeHooks is the hook entries of a config in Claude Code's shape: the
// prompt (within 30 s), the tool calls matcher selects, before and after,
// the failed calls failed selects (none where it is empty) and the turn's
// end (each within 120 s), timeouts in the agent's unit.
func claudeHooks(matcher, failed string, unit int) []hookSpec {
	hooks := []hookSpec{
		{event: "UserPromptSubmit", timeout: 30 * unit},
		{event: "PreToolUse", matcher: matcher, timeout: 120 * unit},
		{event: "PostToolUse", matcher: matcher, timeout: 120 * unit},
	}
	if failed != "" {
		hooks = append(hooks, hookSpec{event: "PostToolUseFailure", matcher: failed, timeout: 120 * unit})
	}
	return append(hooks, hookSpec{event: "Stop", timeout: 120 * unit})
}

const (
	// claudeMatcher selects Claude Code's file-writing tools, its shell and
	// MCP tools.
	claudeMatcher = "Write|Edit|MultiEdit|NotebookEdit|Bash|mcp__.*"
	// shellMatcher selects the shell and MCP tools in Claude-shaped configs
	// (Claude Code, Codex: the shell reaches hooks as Bash there too).
	shellMatcher = "^(Bash|mcp__.*)$"
	// codexMatcher selects apply_patch (Edit and Write are its aliases), the
	// shell (Bash) and MCP tools.
	codexMatcher = "^(apply_patch|Bash|mcp__.*)$"
	// geminiMatcher selects Gemini CLI's file-writing tools, its shell tool
	// and MCP tools.
	geminiMatcher    = "^(write_file|replace|run_shell_command|mcp_.*)$"
	qwenMatcher      = "^(write_file|edit|replace|run_shell_command|mcp__.*)$"
	qwenShellMatcher = "^(run_shell_command|mcp__.*)$"
	droidMatcher     = "^(Create|Edit|MultiEdit|Write|ApplyPatch|Execute|mcp__.*)$"
)
