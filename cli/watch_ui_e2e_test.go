//go:build linux

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ckpt-dev/ckpt/store"
)

// TestUIStartsWatcher: the UI, on a project whose shell sweeps would use
// the background watcher, starts one when none runs, detached (its own
// session, its standard streams on /dev/null), and never waits on it: a
// watcher that hangs (stopped by a signal) holding the socket is left to
// it, nothing is asked of it, and no second one starts. A project too
// small for one, or watchers turned off, starts none.
func TestUIStartsWatcher(t *testing.T) {
	real, _ := hookPair(t)
	// ck runs the real ckpt, noting each run.
	runs := filepath.Join(t.TempDir(), "runs")
	ck := filepath.Join(filepath.Dir(real), "ckpt-noted")
	if err := os.WriteFile(ck, []byte("#!/bin/sh\necho run >> '"+runs+"'\nexec '"+real+"' \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ran := func() int {
		b, _ := os.ReadFile(runs)
		return strings.Count(string(b), "run")
	}
	root := t.TempDir()
	writeText(t, root, "a.txt", "a\n")
	s, err := store.Open(root, store.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.SweepBefore("", store.TurnMeta{}, ""); err != nil {
		t.Fatal(err)
	}
	sf := storeFolder(root)
	sock := filepath.Join(sf, store.WatchSocket)

	newWatcherStarter(ck).try(s) // a tree of one file: not worth a watcher
	if pathExists(sock) || ran() != 0 {
		t.Fatal("a watcher started for a tree of one file")
	}
	t.Setenv("CKPT_WATCHER", "off")
	newWatcherStarter(ck).try(s)
	if pathExists(sock) || ran() != 0 {
		t.Fatal("a watcher started with CKPT_WATCHER=off")
	}

	t.Setenv("CKPT_WATCHER", "always")
	newWatcherStarter(ck).try(s)
	waitFor(t, func() string { return "the watcher's socket" }, func() bool { return pathExists(sock) })
	t.Cleanup(func() { exec.Command(real, "--root", root, "watch", "--stop").Run() })
	waitFor(t, func() string { return "watch.pid" }, func() bool { return pathExists(filepath.Join(sf, "watch.pid")) })
	pid := strings.Fields(readText(t, root, ".osfoundry/checkpoints/watch.pid"))[0]
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// pid (comm) state ppid pgrp session …; comm holds no spaces here.
	sid, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(string(stat)); len(f) < 6 || f[5] == strconv.Itoa(sid) {
		t.Fatalf("the watcher is in the UI's session: %s", stat)
	}
	for _, fd := range []string{"0", "1", "2"} {
		if to, err := os.Readlink("/proc/" + pid + "/fd/" + fd); err != nil || to != os.DevNull {
			t.Fatalf("the watcher's descriptor %s is %q (%v), not %s", fd, to, err, os.DevNull)
		}
	}

	// Hung: it holds the socket and answers nothing. The UI's start asks
	// it nothing, so it returns, and starts no second watcher.
	if out, err := exec.Command("kill", "-STOP", pid).CombinedOutput(); err != nil {
		t.Fatalf("kill -STOP %s: %v %s", pid, err, out)
	}
	defer exec.Command("kill", "-CONT", pid).Run()
	if !s.WatcherListening() {
		t.Fatal("a hung watcher holding the socket is not seen")
	}
	newWatcherStarter(ck).try(s)
	if n := ran(); n != 1 {
		t.Fatalf("ckpt ran %d times: a second watcher started beside the hung one", n)
	}
	exec.Command("kill", "-CONT", pid).Run()
}
