package agent

import "strings"

// Qwen Code runs Claude-style hooks listed in .qwen/settings.json (a
// settings file that, as in Gemini CLI it was forked from, allows
// comments; timeouts in milliseconds). Payloads are Claude-shaped; its
// tools are write_file and edit (file_path) and run_shell_command. It
// sends UserPromptSubmit again, with the same prompt_id and an empty
// prompt, before each continuation of one prompt: a turn opens only for a
// new prompt_id. Matchers are regular expressions, tried whole.
func init() {
	register(&adapter{
		name: "qwen",
		parse: claudeShape{
			writes:     toolSet("write_file", "edit", "replace"),
			shell:      isQwenShell,
			projectEnv: "QWEN_PROJECT_DIR",
		}.parse,
		oncePerPrompt: true,
	})
}

func isQwenShell(tool string) bool {
	return tool == "run_shell_command" || strings.HasPrefix(tool, "mcp__")
}
