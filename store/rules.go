package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/ignore"
)

// Rules are the ignore rules a sweep follows in one folder: its own
// .gitignore and .ckptignore and those of the folders above it. A file
// watcher that covers what a sweep covers, and no more, walks with them.
// A Rules value is immutable and safe for concurrent use.
type Rules struct {
	ig      *ignore.Set
	domain  []string // the folder's path elements
	root    string   // the project's root; "" where the disk is not asked
	inStore bool     // the folder is the store's .osfoundry
}

// RootRules are the rules above a project root: none. They know the
// store's folder and ckpt's own entries in it by their exact names
// alone; ProjectRules asks the disk, as a sweep does.
func RootRules() *Rules { return &Rules{ig: &ignore.Set{}} }

// ProjectRules are the rules above the project at root: none. As for
// its sweeps, another spelling of .osfoundry, or of one of ckpt's own
// entries in it, is the store's only where root's file system folds
// case and finds the same folder under it (see storeName); on a
// case-sensitive file system .OSFoundry is a project folder like any
// other.
func ProjectRules(root string) *Rules { return &Rules{ig: &ignore.Set{}, root: root} }

// Enter returns the rules for what lies in the folder name (directly in
// the folder r is for), given that folder's ignore files' bytes (nil:
// none). The .gitignore of .osfoundry is the store's, there to keep git
// out of it, and is not followed.
func (r *Rules) Enter(name string, gitignore, ckptignore []byte) *Rules {
	domain := r.domain
	inStore := len(domain) == 0 && r.isStoreTop(name)
	if inStore {
		gitignore = nil
	}
	if name != "" {
		domain = append(domain[:len(domain):len(domain)], name)
	}
	return &Rules{ig: r.ig.With(ignore.Parse(gitignore, domain), ignore.Parse(ckptignore, domain)), domain: domain, root: r.root, inStore: inStore}
}

// isStoreTop reports whether name, an entry of the project root, is the
// store's .osfoundry.
func (r *Rules) isStoreTop(name string) bool {
	if r.root == "" {
		return name == storeTop
	}
	return storeName(r.root, name)
}

// Skip reports whether a sweep leaves out name, an entry of the folder r
// is for (a folder when dir is set): .git anywhere, ckpt's own entries
// of .osfoundry (see storeOwnNames), and what the ignore files skip.
func (r *Rules) Skip(name string, dir bool) bool {
	if name == ".git" || r.inStore && r.storeOwn(name) {
		return true
	}
	elems := append(r.domain[:len(r.domain):len(r.domain)], name)
	return r.ig.Skip(elems, dir)
}

// IsIgnoreFile reports whether a file of this name holds ignore rules a
// sweep follows.
func IsIgnoreFile(name string) bool { return name == ".gitignore" || name == ".ckptignore" }

// storeTop is the folder at the root that holds the store. Only ckpt's own
// entries of it (storeOwnNames) are the store's; the rest of it, such as
// the budget in ckpt.json, is the project's and swept like any file.
const storeTop = ".osfoundry"

// storeOwnNames are ckpt's own entries of .osfoundry: the store, the
// .gitignore that keeps git out of it, and the hooks' stamps. A sweep
// never lists them, and no record, capture or rewind reaches them.
var storeOwnNames = [...]string{"checkpoints", ".gitignore", "hooks"}

// storeOwn reports whether name, an entry of the store's .osfoundry, is
// one of ckpt's own.
func (r *Rules) storeOwn(name string) bool {
	if r.root == "" {
		return slices.Contains(storeOwnNames[:], name)
	}
	return storeOwnPath(r.root, name)
}

// storeOwnIn reports whether name, an entry of the store's .osfoundry
// (open as dirfd), is one of ckpt's own: that name exactly or, where the
// file system folds case, another spelling that is the same file.
func storeOwnIn(dirfd int, name string) bool {
	for _, n := range storeOwnNames {
		if name == n || strings.EqualFold(name, n) && sameEntry(dirfd, name, n) {
			return true
		}
	}
	return false
}

// storeOwnPath reports whether rest, a path under the store's .osfoundry
// of the project at root ("" for .osfoundry itself), is the store's: the
// folder itself, or one of ckpt's own entries or what lies under it.
func storeOwnPath(root, rest string) bool {
	if rest == "" {
		return true
	}
	first, _, _ := strings.Cut(rest, "/")
	for _, n := range storeOwnNames {
		if first == n {
			return true
		}
		if strings.EqualFold(first, n) {
			a, errA := os.Lstat(filepath.Join(root, storeTop, first))
			b, errB := os.Lstat(filepath.Join(root, storeTop, n))
			if errA != nil {
				// Not there: where case folds, it would be n once made.
				return errB == nil && foldsCase(root)
			}
			return errB == nil && os.SameFile(a, b)
		}
	}
	return false
}

// storeOwnRecord reports whether c, a cleaned record path, names the
// store by its exact spelling (another one is the store only where the
// file system folds case, which Store.rel asks the disk).
func storeOwnRecord(c string) bool {
	top, rest, _ := strings.Cut(c, "/")
	if top != storeTop {
		return false
	}
	first, _, _ := strings.Cut(rest, "/")
	return rest == "" || slices.Contains(storeOwnNames[:], first)
}
