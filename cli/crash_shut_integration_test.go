package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// A rewind that opens a folder its mode shuts its owner out of (000, or
// 0500: no writing), to
// keep and put back what is in it, killed after each of its file
// operations: the next command leaves the folder wholly before the
// rewind (d shut, d/f the command's bytes) or wholly after it (d 0755,
// d/f as before the turn), never open with the command's bytes. Before,
// the folder was opened before anything noted it, so a kill between the
// two left d at 0700 for good.
func TestCrashWhileShutFolderIsOpen(t *testing.T) {
	for _, shut := range []os.FileMode{0, 0o500} {
		t.Run(fmt.Sprintf("%03o", shut), func(t *testing.T) { crashWhileShut(t, shut) })
	}
}

func crashWhileShut(t *testing.T, shut os.FileMode) {
	project := func() permProject {
		return folderTurnProject(t, fmt.Sprintf("echo new > d/f && echo n2 > n.txt && chmod %o d", shut))
	}
	killEachPerm(t, project, []string{"rewind", "1", "--yes"}, func(k int, p permProject) {
		if lr := p.run(t, "log"); lr.Code != 0 {
			t.Fatalf("apply:%d: log after the kill\n%s", k, lr)
		}
		m := p.mode(t, "d")
		os.Chmod(filepath.Join(p.root, "d"), 0o755) // as root: look inside
		f := readText(t, p.root, "d/f")
		switch {
		case m == shut && f == "new\n": // before the rewind
			os.Chmod(filepath.Join(p.root, "d"), shut)
			if r := p.run(t, "rewind", "1", "--yes"); r.Code != 0 {
				t.Fatalf("apply:%d: the rewind run again after the kill\n%s", k, r)
			}
			if m, f := p.mode(t, "d"), readText(t, p.root, "d/f"); m != 0o755 || f != "old\n" {
				t.Fatalf("apply:%d: the rewind run again left d %v, d/f %q", k, m, f)
			}
		case m == 0o755 && f == "old\n": // after it
		default:
			t.Fatalf("apply:%d: after the kill and `ckpt log`, d is %v holding d/f %q: neither as before the rewind (%v, \"new\\n\") nor after it (0755, \"old\\n\")", k, m, f, shut)
		}
	})
}

// A rewind that opens for writing a folder read-only for its owner, whose
// mode no turn changed, killed after each of its file operations: after
// the next command the folder has its mode, and d/f the bytes before the
// rewind or after it.
func TestCrashWhileReadOnlyFolderIsOpen(t *testing.T) {
	killReadOnlyRewind(t, "echo new > d/f && echo made > d/made", "d", "d/f", "old\n", "new\n")
}

// killReadOnlyRewind rewinds turn 1 of readOnlyTurnProject(t, script,
// dir), killed after each of its file operations in turn: after the next
// command, dir must have mode 0555 again and changed hold was (its bytes
// before the rewind) or now (after it).
func killReadOnlyRewind(t *testing.T, script, dir, changed, was, now string) {
	t.Helper()
	project := func() permProject { return readOnlyTurnProject(t, script, dir) }
	killEachPerm(t, project, []string{"rewind", "1", "--yes"}, func(k int, p permProject) {
		if lr := p.run(t, "log"); lr.Code != 0 {
			t.Fatalf("apply:%d: log after the kill\n%s", k, lr)
		}
		if m := p.mode(t, dir); m != 0o555 {
			t.Fatalf("apply:%d: %s is %v after the kill and `ckpt log`, want 0555", k, folderName(dir), m)
		}
		if f := readText(t, p.root, changed); f != was && f != now {
			t.Fatalf("apply:%d: %s holds %q", k, changed, f)
		}
	})
}

// killEachPerm runs args, as the user of a fresh project each time, under
// CKPT_FAILPOINT=apply:K for K = 1, 2, … until a run outlives it (it must
// then exit 0, and the first must be killed), handing each killed run's
// project to check.
func killEachPerm(t *testing.T, project func() permProject, args []string, check func(k int, p permProject)) {
	t.Helper()
	kills := 0
	for k := 1; ; k++ {
		if k > maxFailpoint {
			t.Fatalf("%s still killed at apply:%d", args[0], k)
		}
		p := project()
		r := p.runWith(t, []string{"CKPT_FAILPOINT=apply:" + strconv.Itoa(k)}, args...)
		if !r.Killed {
			if r.Code != 0 || k == 1 {
				t.Fatalf("apply:%d: want a kill at 1, then exit 0 or a kill\n%s", k, r)
			}
			break
		}
		kills++
		check(k, p)
	}
	t.Logf("%s killed after each of %d file operations", args[0], kills)
}

// The same with the project root read-only for its owner: after the next
// command the root has its mode, and n.txt the bytes before the rewind or
// after it.
func TestCrashWhileReadOnlyRootIsOpen(t *testing.T) {
	killReadOnlyRewind(t, "echo made > made.txt && echo n2 > n.txt", ".", "n.txt", "n\n", "n2\n")
}
