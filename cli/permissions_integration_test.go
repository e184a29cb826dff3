package cli

// Files and folders the user cannot read: a sweep can keep nothing of
// them, so what it never kept must show as not kept, never as something
// a command made (which a rewind would delete).

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobodyID is the user the permission tests run ckpt as when the tests
// run as root, for whom no permission bit stands in the way.
const nobodyID = 65534

// unprivBinary is ckptBin where nobody may run it: its folder, which
// holds nothing else and goes when the tests end, is opened to all.
func unprivBinary(t *testing.T) string {
	t.Helper()
	if err := os.Chmod(filepath.Dir(ckptBin), 0o755); err != nil {
		t.Fatal(err)
	}
	return ckptBin
}

// permProject is a folder that permission bits apply to: as root, one
// nobody owns, whom ckpt then runs as.
type permProject struct {
	root string
	asID bool
}

func newPermProject(t *testing.T) permProject {
	t.Helper()
	p := permProject{asID: os.Geteuid() == 0}
	root, err := os.MkdirTemp("", "ckpt-perm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			os.Chmod(p, 0o700)
			return nil
		})
		os.RemoveAll(root)
	})
	p.root = root
	return p
}

// own hands everything under the root to the user ckpt runs as.
func (p permProject) own(t *testing.T) {
	t.Helper()
	if !p.asID {
		return
	}
	err := filepath.WalkDir(p.root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, nobodyID, nobodyID)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p.root, 0o755); err != nil {
		t.Fatal(err)
	}
}

// newClosedProject is a project whose folder closed, holding closed/c,
// its user may not list (mode 0300), beside n.txt.
func newClosedProject(t *testing.T) permProject {
	t.Helper()
	p := newPermProject(t)
	writeTexts(t, p.root, map[string]string{"closed/c": "the user's own bytes\n", "n.txt": "n\n"})
	if err := os.Chmod(filepath.Join(p.root, "closed"), 0o300); err != nil {
		t.Fatal(err)
	}
	p.own(t)
	return p
}

// command is ckpt on the project as its user, not yet started.
func (p permProject) command(ctx context.Context, t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := ckptCommand(ctx, ckptCall{Root: p.root}, args...)
	if p.asID {
		cmd.Path = unprivBinary(t)
		cmd.Env = append(cmd.Env, "HOME="+p.root)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobodyID, Gid: nobodyID}}
	}
	return cmd
}

// run runs ckpt on the project as its user.
func (p permProject) run(t *testing.T, args ...string) ckptRun {
	t.Helper()
	return p.runWith(t, nil, args...)
}

// runWith runs ckpt on the project as its user with env added to its
// environment; Killed says a SIGKILL ended it.
func (p permProject) runWith(t *testing.T, env []string, args ...string) ckptRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ckptTimeout)
	defer cancel()
	cmd := p.command(ctx, t, args...)
	cmd.Env = append(cmd.Env, env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := ckptRun{Args: args, Stdout: out.String(), Stderr: errb.String()}
	r.Code, r.Killed = exitStatus(t, err, cmd)
	return r
}

// mode is the permission bits of name in the project.
func (p permProject) mode(t *testing.T, name string) os.FileMode {
	t.Helper()
	fi, err := os.Lstat(filepath.Join(p.root, name))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// rewindKeepsClosed rewinds turn of a project made by newClosedProject,
// whose command made closed readable: the rewind says closed/c could
// not be restored (exit 3), leaves its bytes, and gives closed back the
// mode it had before the command.
func (p permProject) rewindKeepsClosed(t *testing.T, turn string) {
	t.Helper()
	r := p.run(t, "rewind", turn, "--yes")
	if r.Code != 3 {
		t.Fatalf("rewind: want exit 3 (closed/c not restorable)\n%s", r)
	}
	wantSubstrings(t, "the rewind", r.Stdout+r.Stderr, "closed/c", "could not be read before the command")
	if got := readText(t, p.root, "closed/c"); got != "the user's own bytes\n" {
		t.Fatalf("closed/c holds %q after the rewind", got)
	}
	if m := p.mode(t, "closed"); m != 0o300 {
		t.Fatalf("closed is %v after the rewind, want its mode before the command, 0300", m)
	}
}

// A folder the sweep before a command could not list, which the command
// made readable: what it holds was there before, so it is not the
// command's to delete. Before, the sweep after recorded closed/c as
// created and the rewind deleted it (and the folder), exit 0.
func TestUnlistableFolderMadeReadable(t *testing.T) {
	p := newClosedProject(t)
	if r := p.run(t, "exec", "--turn", "0", "--", "true"); r.Code != 0 {
		t.Fatalf("first sweep\n%s", r)
	}
	r := p.run(t, "exec", "--turn", "1", "--", "sh", "-c", "chmod 700 closed")
	if r.Code != 0 {
		t.Fatalf("exec\n%s", r)
	}
	wantSubstrings(t, "the sweep's stderr", r.Stderr, "closed/c: its folder closed could not be read before the command")
	p.rewindKeepsClosed(t, "1")
	if r := p.run(t, "undo", "--yes"); r.Code != 0 {
		t.Fatalf("undo\n%s", r)
	}
	if m := p.mode(t, "closed"); m != 0o700 {
		t.Fatalf("closed is %v after the undo, want 0700", m)
	}
	if got := readText(t, p.root, "closed/c"); got != "the user's own bytes\n" {
		t.Fatalf("closed/c holds %q after the undo", got)
	}
}

// A file the user neither can read nor owns (root's, mode 000), deleted
// by a command: its bytes were never kept, and the rewind's preview and
// the rewind say so (exit 3) instead of reporting success. A file the
// user owns is opened to be read (TestOwnFileShutByCommandRewound).
func TestUnreadableFileDeleted(t *testing.T) {
	p := newPermProject(t)
	if !p.asID {
		t.Skip("needs a file another user owns: the permission tests make one as root")
	}
	writeTexts(t, p.root, map[string]string{"secret": "unreadable\n", "n.txt": "n\n"})
	if err := os.Chmod(filepath.Join(p.root, "secret"), 0o000); err != nil {
		t.Fatal(err)
	}
	p.own(t)
	if err := os.Lchown(filepath.Join(p.root, "secret"), 0, 0); err != nil {
		t.Fatal(err)
	}
	p.run(t, "exec", "--turn", "0", "--", "true")
	r := p.run(t, "exec", "--turn", "1", "--", "sh", "-c", "rm -f secret; echo n2 > n.txt")
	if r.Code != 0 {
		t.Fatalf("exec\n%s", r)
	}
	wantSubstrings(t, "the sweep's stderr", r.Stderr, "secret: it could not be read or kept before the command")
	r = p.run(t, "rewind", "1", "--dry-run")
	wantSubstrings(t, "the rewind's preview", r.Stdout+r.Stderr, "secret", "could not be read or kept before the command")
	r = p.run(t, "rewind", "1", "--yes")
	if r.Code != 3 {
		t.Fatalf("rewind: want exit 3 (secret was never kept)\n%s", r)
	}
	wantSubstrings(t, "the rewind", r.Stdout+r.Stderr, "secret", "not restored", "could not be read or kept before the command")
	if got := readText(t, p.root, "n.txt"); got != "n\n" {
		t.Fatalf("n.txt holds %q after the rewind", got)
	}
}
