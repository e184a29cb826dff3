package store

import (
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/ignore"
)

// Rules are the ignore rules a sweep follows in one folder: its own
// .gitignore and .ckptignore and those of the folders above it. A file
// watcher that covers what a sweep covers, and no more, walks with them.
// A Rules value is immutable and safe for concurrent use.
type Rules struct {
	ig     *ignore.Set
	domain []string // the folder's path elements
}

// RootRules are the rules above the project root: none.
func RootRules() *Rules { return &Rules{ig: &ignore.Set{}} }

// Enter returns the rules for what lies in the folder name (directly in
// the folder r is for), given that folder's ignore files' bytes (nil:
// none).
func (r *Rules) Enter(name string, gitignore, ckptignore []byte) *Rules {
	domain := r.domain
	if name != "" {
		domain = append(domain[:len(domain):len(domain)], name)
	}
	return &Rules{ig: r.ig.With(ignore.Parse(gitignore, domain), ignore.Parse(ckptignore, domain)), domain: domain}
}

// Skip reports whether a sweep leaves out name, an entry of the folder r
// is for (a folder when dir is set): .git anywhere, the store's folder
// at the root, and what the ignore files skip.
func (r *Rules) Skip(name string, dir bool) bool {
	if name == ".git" || len(r.domain) == 0 && strings.EqualFold(name, ".osfoundry") {
		return true
	}
	elems := append(r.domain[:len(r.domain):len(r.domain)], name)
	return r.ig.Skip(elems, dir)
}

// IsIgnoreFile reports whether a file of this name holds ignore rules a
// sweep follows.
func IsIgnoreFile(name string) bool { return name == ".gitignore" || name == ".ckptignore" }
