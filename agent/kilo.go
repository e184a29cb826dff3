package agent

import ()

// Kilo CLI is a fork of opencode and loads the same plugins, from its own
// folder: ckpt's plugin is opencode's, sending its events to `ckpt hook
// kilo`. Built from Kilo's documentation, not run here.
func init() {
	register(&adapter{
		name:  "kilo",
		parse: parseOpencode,
	})
}
