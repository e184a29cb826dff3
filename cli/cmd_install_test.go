package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallAfterMove: install from one path, delete that binary, install
// from another: the hooks run the second, once per event; doctor is
// content; uninstall says which binary's hooks it took out and gives back
// the original bytes.
func TestInstallAfterMove(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	orig := "{\n  \"model\": \"opus\"\n}\n"
	writeTexts(t, root, map[string]string{".claude/settings.local.json": orig})
	data, err := os.ReadFile(ckptBin)
	if err != nil {
		t.Fatal(err)
	}
	bins := t.TempDir()
	a, b := filepath.Join(bins, "a", "ckpt"), filepath.Join(bins, "b", "ckpt")
	for _, p := range []string{a, b} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := ckptEnv(root, []string{"HOME=" + home, "PATH=/usr/bin:/bin"})
	if r := runBinary(a, root, nil, env, "install", "claude"); r.Code != 0 {
		t.Fatalf("install from a: %+v", r)
	}
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	r := runBinary(b, root, nil, env, "install", "claude")
	if r.Code != 0 || !strings.Contains(r.Stdout, "in place of "+a) {
		t.Fatalf("install from b: %+v", r)
	}
	cfg := readText(t, root, ".claude/settings.local.json")
	if strings.Contains(cfg, a) || strings.Count(cfg, b+" hook claude") != 5 {
		t.Fatalf("hooks after install from b:\n%s", cfg)
	}
	if r := runBinary(b, root, nil, env, "doctor", "claude"); r.Code != 0 {
		t.Fatalf("doctor after install from b: %+v", r)
	}
	r = runBinary(b, root, nil, env, "uninstall", "claude")
	if r.Code != 0 || !strings.Contains(r.Stdout, "(running "+b+")") {
		t.Fatalf("uninstall: %+v", r)
	}
	if got := readText(t, root, ".claude/settings.local.json"); got != orig {
		t.Fatalf("uninstall left\n%q\nwant\n%q", got, orig)
	}
}

// TestVanishing: install warns for a binary that will be deleted under the
// hooks, and for nothing else.
func TestVanishing(t *testing.T) {
	tmp := os.TempDir()
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = r
	}
	for _, tc := range []struct {
		name, exe string
		warns     bool
	}{
		{"go run", filepath.Join(tmp, "go-build123", "b001", "exe", "ckpt"), true},
		{"npx cache", "/home/u/.npm/_npx/6feac2520a26ac8a/node_modules/@ckpt-dev/ckpt-linux-x64/bin/ckpt", true},
		{"npm -g", "/usr/local/lib/node_modules/@ckpt-dev/ckpt/node_modules/@ckpt-dev/ckpt-linux-x64/bin/ckpt", false},
		{"go install", "/home/u/go/bin/ckpt", false},
		{"a folder named _npx alone", "/home/u/_npx/bin/ckpt", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := vanishing(tc.exe) != ""; got != tc.warns {
				t.Errorf("vanishing(%q) = %q, want a warning: %v", tc.exe, vanishing(tc.exe), tc.warns)
			}
		})
	}
}
