package setup

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
)

// ownedInstaller writes a file that holds ckpt's hooks and nothing else
// (pi's extension, Copilot's .github/hooks/ckpt.json, Cline's hook
// scripts), rendered for the binary the hooks run. The file is ckpt's
// only when it is exactly what render gives for some binary: install
// replaces such a file (the binary moved) and refuses any other, and
// uninstall removes it, so an edited copy is left alone.
type ownedInstaller struct {
	file   string
	render func(exe string) []byte
	// find picks out of data the binary a rendered file names; data is
	// ckpt's when render gives it back for that binary.
	find func(data []byte) (string, bool)
	// past are the files earlier installs wrote, still ckpt's: install
	// replaces them and uninstall removes them. Each is known by its hash
	// (pastHash), so that its text need not be kept.
	past  []string
	fmode fs.FileMode // 0: 0644
}

// pastExe is the binary a past file's hash is taken for.
const pastExe = "/ckpt"

// pastHash is the hex SHA-256 of data, a file naming the binary exe in a
// line `const CKPT = "…"` (a plugin, an extension), with pastExe named
// there instead: one hash for a text whatever binary it was written for.
// testdata/past/ holds the files these hashes are of.
func pastHash(data []byte, exe string) string {
	lit, _ := json.Marshal(exe)
	canon, _ := json.Marshal(pastExe)
	line := []byte("const CKPT = ")
	data = bytes.Replace(data, append(slices.Clip(line), lit...), append(slices.Clip(line), canon...), 1)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func (o ownedInstaller) path() string { return o.file }

func (o ownedInstaller) mode() fs.FileMode {
	if o.fmode == 0 {
		return 0o644
	}
	return o.fmode
}

// owner is the binary data was rendered for, ok false when data is not a
// file install wrote.
func (o ownedInstaller) owner(data []byte) (string, bool) {
	exe, ok := o.find(data)
	if !ok {
		return "", false
	}
	if bytes.Equal(data, o.render(exe)) || len(o.past) > 0 && slices.Contains(o.past, pastHash(data, exe)) {
		return exe, true
	}
	return "", false
}

func (o ownedInstaller) add(_ string, old []byte, existed bool, exe string) ([]byte, error) {
	if _, ours := o.owner(old); existed && !ours {
		return nil, fmt.Errorf("exists and was not written by ckpt install; left alone")
	}
	return o.render(exe), nil
}

func (o ownedInstaller) remove(_ string, old []byte, _ string) ([]byte, bool, error) {
	if _, ours := o.owner(old); !ours {
		return nil, false, fmt.Errorf("was not written by ckpt install (or was edited since); left alone")
	}
	return nil, false, nil
}

func (o ownedInstaller) exes(_ string, data []byte, _ string) []string {
	if exe, ok := o.owner(data); ok {
		return []string{exe}
	}
	return nil
}

// filesInstaller is several owned files, one per event (Cline).
type filesInstaller []ownedInstaller

func (f filesInstaller) parts() []installer {
	out := make([]installer, len(f))
	for i, o := range f {
		out[i] = o
	}
	return out
}

func (f filesInstaller) path() string { return f[0].path() }
func (f filesInstaller) add(a string, old []byte, existed bool, exe string) ([]byte, error) {
	return f[0].add(a, old, existed, exe)
}
func (f filesInstaller) remove(a string, old []byte, exe string) ([]byte, bool, error) {
	return f[0].remove(a, old, exe)
}
func (f filesInstaller) exes(a string, data []byte, exe string) []string {
	return f[0].exes(a, data, exe)
}
