package cli

import "testing"

// versionIn finds the version whatever comes before it. Before, Copilot
// CLI's first run, which prints "Package extraction took 5195ms" first,
// gave the version "5195ms".
func TestVersionIn(t *testing.T) {
	for out, want := range map[string]string{
		"Package extraction took 5195ms\nGitHub Copilot CLI 1.0.102.\n": "1.0.102",
		"2.1.328 (Claude Code)\n":   "2.1.328",
		"v0.73.1\n":                 "0.73.1",
		"qwen 0.24.4-preview\n":     "0.24.4-preview",
		"codex-cli 0.171.0":         "0.171.0",
		"took 12 seconds, no build": "",
	} {
		if got := versionIn(out); got != want {
			t.Errorf("versionIn(%q) = %q, want %q", out, got, want)
		}
	}
}
