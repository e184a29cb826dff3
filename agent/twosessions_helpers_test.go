package agent

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// sessionsRoot is a new project folder for agents' sessions, its path
// with links resolved, as a hook resolves the cwd it is sent.
func sessionsRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return root
}

// putFile writes data at rel under root, making the folders it needs.
func putFile(root, rel, data string) error {
	full := filepath.Join(root, rel)
	os.MkdirAll(filepath.Dir(full), 0o755)
	return os.WriteFile(full, []byte(data), 0o644)
}

// folderSnapshot is what root holds outside the folders of git, ckpt
// and the agents: each file's bytes, each link's target as "-> target",
// and each folder as "folder" under its path and a trailing "/".
func folderSnapshot(root string) map[string]string {
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		if rel == ".git" || rel == ".osfoundry" || rel == ".claude" || rel == ".codex" {
			return filepath.SkipDir
		}
		switch {
		case err != nil || rel == ".":
		case d.IsDir():
			out[rel+"/"] = "folder"
		case d.Type()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[rel] = "-> " + l
		default:
			b, _ := os.ReadFile(p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

// withFields is ev with the key and value pairs of kv set in it.
func withFields(ev map[string]any, kv ...any) map[string]any {
	for i := 0; i+1 < len(kv); i += 2 {
		ev[kv[i].(string)] = kv[i+1]
	}
	return ev
}

// sendHook gives ev to agentName's hook in the project at root, as the
// agent sends it there: with root as its cwd and, for Claude Code, as
// CLAUDE_PROJECT_DIR.
func sendHook(root, agentName string, ev map[string]any) error {
	ev["cwd"] = root
	b, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	env := map[string]string{"CLAUDE_PROJECT_DIR": root}
	return Hook(agentName, bytes.NewReader(b), &out, HookOptions{Root: root, Getenv: func(k string) string { return env[k] }})
}
