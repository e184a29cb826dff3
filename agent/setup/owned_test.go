package setup

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The extension and plugins an earlier install wrote, before they
// forwarded the conversation, are still ckpt's: install replaces them
// with the present ones, and uninstall removes them.
func TestEarlierExtensionsReplaced(t *testing.T) {
	for _, c := range []struct {
		agent, file string
		old         []byte
		now         func(string) []byte
	}{
		{"pi", ".pi/extensions/ckpt.ts", renderTemplate(piExtensionFirst)("/old/ckpt"), renderPiExtension},
		{"opencode", ".opencode/plugins/ckpt.ts", renderTemplate(pluginSourceNode)("/old/ckpt"), renderPlugin},
		{"kilo", ".kilo/plugins/ckpt.ts", kiloOf(renderTemplate(pluginSourceNode))("/old/ckpt"), renderKiloPlugin},
	} {
		for _, install := range []bool{true, false} {
			root := t.TempDir()
			p := filepath.Join(root, filepath.FromSlash(c.file))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, c.old, 0o644); err != nil {
				t.Fatal(err)
			}
			opt := InstallOptions{Root: root, Exe: "/usr/bin/ckpt"}
			if install {
				if _, err := Install(c.agent, opt); err != nil {
					t.Fatalf("install %s over the earlier file: %v", c.agent, err)
				}
				if b, _ := os.ReadFile(p); !bytes.Equal(b, c.now("/usr/bin/ckpt")) {
					t.Errorf("install %s left:\n%s", c.agent, b)
				}
				continue
			}
			if _, err := Uninstall(c.agent, opt); err != nil {
				t.Fatalf("uninstall %s of the earlier file: %v", c.agent, err)
			}
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("uninstall %s left %s: %v", c.agent, c.file, err)
			}
		}
	}
}
