package cli

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ckpt-dev/ckpt/agent/setup"
)

// TestDoctorExit: doctor exits 1 when no agent is installed or a named
// one would not capture, and 0 when every installed agent captures.
func TestDoctorExit(t *testing.T) {
	root := t.TempDir()
	exe := filepath.Join(t.TempDir(), "ckpt")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", t.TempDir())
	noVersion := func(string) (string, error) { return "", errors.New("not on $PATH") }
	code := func(names ...string) int {
		t.Helper()
		err := runDoctor(root, exe, names, true, noVersion)
		var ec exitCodeError
		switch {
		case err == nil:
			return 0
		case errors.As(err, &ec):
			return int(ec)
		}
		t.Fatalf("doctor: %v", err)
		return -1
	}
	if c := code(); c != exitError {
		t.Errorf("nothing installed: exit %d", c)
	}
	if _, err := setup.Install("claude", setup.InstallOptions{Root: root, Exe: exe}); err != nil {
		t.Fatal(err)
	}
	if c := code(); c != exitOK {
		t.Errorf("claude installed: exit %d", c)
	}
	if c := code("codex"); c != exitError {
		t.Errorf("codex named, not installed: exit %d", c)
	}
	if _, err := setup.Install("codex", setup.InstallOptions{Root: root, Exe: exe}); err != nil {
		t.Fatal(err)
	}
	if c := code(); c != exitError {
		t.Errorf("codex installed, not approved: exit %d", c)
	}
}
