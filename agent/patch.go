package agent

import "strings"

// The apply_patch format (Codex's, and opencode's for gpt- models):
//
//	*** Begin Patch
//	*** Add File: P        then lines starting with '+'
//	*** Delete File: P
//	*** Update File: P     then, optionally, *** Move to: Q
//	                       then chunks: "@@ …" and lines starting with ' ', '-', '+'
//	*** End Patch
//
// Codex's parser (codex-rs/apply-patch/src/parser.rs) trims the patch and
// the whitespace around each hunk header, so `   *** Update File: a.go` is
// a header; a Move to line is matched as it stands; an update's body runs
// to the next line starting with '*'; a patch wrapped in a heredoc
// (<<'EOF' … EOF) is unwrapped. patchPaths reads it the same way.

const (
	patchBegin  = "*** Begin Patch"
	patchEnd    = "*** End Patch"
	patchAdd    = "*** Add File: "
	patchDelete = "*** Delete File: "
	patchUpdate = "*** Update File: "
	patchMove   = "*** Move to: "
)

// patchPaths lists the files an apply_patch patch touches, in order of
// appearance: every added, deleted and updated path, and for a move both
// the source and the destination. Hunk bodies are skipped as Codex skips
// them, so file contents cannot pass for a header. A patch without its
// Begin and End lines is read leniently, every trimmed line that is a
// header counting (capturing a file the tool then leaves alone is
// harmless; missing one is not).
func patchPaths(patch string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	lines := strings.Split(strings.ReplaceAll(strings.TrimSpace(patch), "\r\n", "\n"), "\n")
	body, ok := patchBody(lines)
	if !ok {
		for _, l := range lines {
			t := strings.TrimSpace(l)
			for _, h := range []string{patchAdd, patchDelete, patchUpdate, patchMove} {
				if rest, ok := strings.CutPrefix(t, h); ok {
					add(rest)
				}
			}
		}
		return out
	}
	for i := 0; i < len(body); {
		first := strings.TrimSpace(body[i])
		i++
		switch {
		case strings.HasPrefix(first, patchAdd):
			add(strings.TrimPrefix(first, patchAdd))
			for i < len(body) && strings.HasPrefix(body[i], "+") {
				i++
			}
		case strings.HasPrefix(first, patchDelete):
			add(strings.TrimPrefix(first, patchDelete))
		case strings.HasPrefix(first, patchUpdate):
			add(strings.TrimPrefix(first, patchUpdate))
			if i < len(body) && strings.HasPrefix(body[i], patchMove) {
				add(strings.TrimPrefix(body[i], patchMove))
				i++
			}
			for i < len(body) && !strings.HasPrefix(body[i], "*") {
				i++
			}
		}
		// Anything else (a stray line, *** End of File) is skipped; Codex
		// would refuse the patch, or read it as part of the chunk.
	}
	return out
}

// patchBody is the lines between a patch's Begin and End lines, also
// inside a heredoc; ok false when the patch has no such frame.
func patchBody(lines []string) ([]string, bool) {
	framed := func(l []string) bool {
		return len(l) >= 2 && strings.TrimSpace(l[0]) == patchBegin && strings.TrimSpace(l[len(l)-1]) == patchEnd
	}
	if framed(lines) {
		return lines[1 : len(lines)-1], true
	}
	if n := len(lines); n >= 4 && (lines[0] == "<<EOF" || lines[0] == "<<'EOF'" || lines[0] == `<<"EOF"`) && strings.HasSuffix(lines[n-1], "EOF") && framed(lines[1:n-1]) {
		return lines[2 : n-2], true
	}
	return nil, false
}
