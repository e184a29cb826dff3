package agent

import "strings"

// patchPaths lists the files an apply_patch patch (Codex's and opencode's
// format) touches, in order of appearance: every `*** Add File:`,
// `*** Update File:` and `*** Delete File:` path, and for a move both the
// source (its Update header) and the destination (`*** Move to:`). Headers
// are matched only at the start of a line; body lines always start with
// '+', '-', ' ' or "@@", so file contents cannot pass for a header.
func patchPaths(patch string) []string {
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, h := range []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"} {
			if rest, ok := strings.CutPrefix(line, h); ok {
				if p := strings.TrimSpace(rest); p != "" && !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
				break
			}
		}
	}
	return out
}
