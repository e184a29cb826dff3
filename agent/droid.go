package agent

import "strings"

// Factory's Droid runs Claude-shaped hooks listed in .factory/hooks.json
// (timeouts in seconds; $FACTORY_PROJECT_DIR names the project). Its file
// tools are Create and Edit (file_path) and ApplyPatch; its shell is
// Execute. Built from Droid's documentation, not run here.
func init() {
	register(&adapter{
		name: "droid",
		parse: claudeShape{
			writes:     toolSet("Create", "Edit", "MultiEdit", "Write", "ApplyPatch"),
			shell:      func(t string) bool { return t == "Execute" || strings.HasPrefix(t, "mcp__") },
			projectEnv: "FACTORY_PROJECT_DIR",
		}.parse,
	})
}
