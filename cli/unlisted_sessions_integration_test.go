//go:build linux

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestUnlistableFolderMadeReadableDuringOtherCommand: A's command makes
// readable a folder the sweeps could not list, and while it runs B's
// command sweeps. The files found in the folder may have been there all
// along: whoever records them keeps them as not kept, never as made by
// A's command, so a rewind of A's turn leaves them and says so (exit 3).
// Before, B's sweep left closed/c to A's closing sweep, which no longer
// knew the folder had been unlistable and recorded it as created, and
// the rewind deleted the user's file.
func TestUnlistableFolderMadeReadableDuringOtherCommand(t *testing.T) {
	p := newClosedProject(t)
	// Where A's command and the test signal each other: a folder its
	// user may write in, as the test's own temporary folder is not.
	signals, err := os.MkdirTemp("", "ckpt-signals-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(signals) })
	if err := os.Chmod(signals, 0o777); err != nil {
		t.Fatal(err)
	}
	started, goOn := filepath.Join(signals, "started"), filepath.Join(signals, "go")
	if r := p.run(t, "exec", "--turn", "0", "--", "true"); r.Code != 0 {
		t.Fatalf("first sweep\n%s", r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ckptTimeout)
	defer cancel()
	script := "chmod 700 closed; touch " + started + "; while [ ! -e " + goOn + " ]; do sleep 0.05; done"
	a := p.command(ctx, t, "exec", "--turn", "1", "--", "sh", "-c", script)
	var aOut bytes.Buffer
	a.Stdout, a.Stderr = &aOut, &aOut
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() string { return "A's command to start" }, func() bool {
		_, err := os.Stat(started)
		return err == nil
	})
	if r := p.run(t, "exec", "--turn", "2", "--", "true"); r.Code != 0 {
		t.Fatalf("B's command\n%s", r)
	}
	if err := os.WriteFile(goOn, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := a.Wait(); err != nil {
		t.Fatalf("A's command: %v\n%s", err, aOut.String())
	}
	p.rewindKeepsClosed(t, "1")
}
