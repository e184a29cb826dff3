package agent

import (
	"strings"
)

// Kilo CLI is a fork of opencode and loads the same plugins, from its own
// folder: ckpt's plugin is opencode's, sending its events to `ckpt hook
// kilo`. Built from Kilo's documentation, not run here.
func init() {
	register(&adapter{
		name:  "kilo",
		parse: parseOpencode,
		install: ownedInstaller{
			file:   ".kilo/plugins/ckpt.ts",
			render: renderKiloPlugin,
			find:   findConstCKPT,
			past:   []func(string) []byte{kiloOf(renderTemplate(pluginSourceNode))},
		},
	})
}

func renderKiloPlugin(exe string) []byte { return kiloOf(renderPlugin)(exe) }

// kiloOf is an opencode plugin's rendering, made Kilo's.
func kiloOf(render func(string) []byte) func(string) []byte {
	r := strings.NewReplacer("hook opencode", "hook kilo", `"hook", "opencode"`, `"hook", "kilo"`, "install opencode", "install kilo", "uninstall opencode", "uninstall kilo",
		"opencode's file tools", "Kilo's file tools", "undefined where opencode runs", "undefined where Kilo runs")
	return func(exe string) []byte { return []byte(r.Replace(string(render(exe)))) }
}
