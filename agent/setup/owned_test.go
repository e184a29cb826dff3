package setup

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The extension and plugins earlier installs wrote (testdata/past/, for
// the binary /old/ckpt) are still ckpt's, known by their hash: install
// replaces them with the present ones, and uninstall removes them; a copy
// edited by a byte is the user's, and both leave it alone.
func TestEarlierExtensionsReplaced(t *testing.T) {
	for _, c := range []struct {
		agent, file, past string
		now               func(string) []byte
	}{
		{"pi", ".pi/extensions/ckpt.ts", "pi-first.ts.golden", renderPiExtension},
		{"opencode", ".opencode/plugins/ckpt.ts", "opencode-first.ts.golden", renderPlugin},
		{"opencode", ".opencode/plugins/ckpt.ts", "opencode-shell.ts.golden", renderPlugin},
		{"opencode", ".opencode/plugins/ckpt.ts", "opencode-node.ts.golden", renderPlugin},
		{"kilo", ".kilo/plugins/ckpt.ts", "kilo-node.ts.golden", renderKiloPlugin},
	} {
		old, err := os.ReadFile(filepath.Join("testdata", "past", c.past))
		if err != nil {
			t.Fatal(err)
		}
		edited := bytes.Replace(old, []byte("// ckpt: keeps"), []byte("// ckpt: Keeps"), 1)
		if bytes.Equal(edited, old) {
			t.Fatalf("%s: nothing to edit", c.past)
		}
		for _, step := range []string{"install", "uninstall", "install edited", "uninstall edited"} {
			t.Run(c.past+"/"+step, func(t *testing.T) {
				root := t.TempDir()
				p := filepath.Join(root, filepath.FromSlash(c.file))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				content := old
				if step == "install edited" || step == "uninstall edited" {
					content = edited
				}
				if err := os.WriteFile(p, content, 0o644); err != nil {
					t.Fatal(err)
				}
				opt := InstallOptions{Root: root, Exe: "/usr/bin/ckpt"}
				switch step {
				case "install":
					ch, err := Install(c.agent, opt)
					if err != nil {
						t.Fatalf("install %s over the earlier file: %v", c.agent, err)
					}
					if b, _ := os.ReadFile(p); !bytes.Equal(b, c.now("/usr/bin/ckpt")) {
						t.Errorf("install %s left:\n%s", c.agent, b)
					}
					if len(ch.Removed) != 1 || ch.Removed[0] != "/old/ckpt" {
						t.Errorf("install %s replaced hooks for %v, want [/old/ckpt]", c.agent, ch.Removed)
					}
				case "uninstall":
					if _, err := Uninstall(c.agent, opt); err != nil {
						t.Fatalf("uninstall %s of the earlier file: %v", c.agent, err)
					}
					if _, err := os.Stat(p); !os.IsNotExist(err) {
						t.Errorf("uninstall %s left %s: %v", c.agent, c.file, err)
					}
				default:
					var err error
					if step == "install edited" {
						_, err = Install(c.agent, opt)
					} else {
						_, err = Uninstall(c.agent, opt)
					}
					if err == nil {
						t.Errorf("%s over an edited earlier file succeeded", step)
					}
					if b, _ := os.ReadFile(p); !bytes.Equal(b, edited) {
						t.Errorf("%s changed the edited file", step)
					}
				}
			})
		}
	}
}

// TestPastHash: a past file's hash is the same whatever binary it names,
// and differs for another text.
func TestPastHash(t *testing.T) {
	a := renderPiExtension("/a/ckpt")
	b := renderPiExtension("/opt/b & c/ckpt-hook")
	if pastHash(a, "/a/ckpt") != pastHash(b, "/opt/b & c/ckpt-hook") {
		t.Error("one text rendered for two binaries hashes differently")
	}
	if pastHash(a, "/a/ckpt") == pastHash(renderPlugin("/a/ckpt"), "/a/ckpt") {
		t.Error("two texts hash the same")
	}
}
