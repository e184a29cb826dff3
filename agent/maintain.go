package agent

import (
	"os"
	"path/filepath"
	"syscall"
)

// maintain starts `ckpt maintain` in the background at the end of a turn
// when the store may have work due (a repack, or a retention pass within
// the project's budget, which that process reads; see
// store.MaintenanceDue): never in the hook itself,
// which an agent waits on. The process is detached — its own session,
// standard streams on /dev/null — so no agent waits on it and no hook's
// pipes stay open; it takes the store's locks like any command, so a hook
// that comes meanwhile waits only where it would wait for prune.
// CKPT_BACKGROUND=off turns it off (scripts, tests).
func (h *hookCall) maintain() {
	if h.getenv("CKPT_BACKGROUND") == "off" {
		return
	}
	if !h.store.MaintenanceDue() {
		return
	}
	exe := ckptBinary()
	if exe == "" {
		return
	}
	if err := startDetached(exe, "--root", h.root(), "maintain"); err != nil {
		h.log("hook %s: start %s maintain: %v", h.agent.name, exe, err)
	}
}

// ckptBinary is the ckpt command line beside the running binary: itself
// when it is ckpt, the ckpt next to it when it is ckpt-hook (which does
// not link the commands), else "" (a test binary).
func ckptBinary() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	switch filepath.Base(exe) {
	case "ckpt":
		return exe
	case "ckpt-hook":
		sib := filepath.Join(filepath.Dir(exe), "ckpt")
		if fi, err := os.Stat(sib); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return sib
		}
	}
	return ""
}

// startDetached starts exe with args in a session of its own, its
// standard streams on /dev/null, and does not wait for it.
func startDetached(exe string, args ...string) error {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	p, err := os.StartProcess(exe, append([]string{exe}, args...), &os.ProcAttr{
		Dir:   "/",
		Files: []*os.File{null, null, null},
		Sys:   &syscall.SysProcAttr{Setsid: true},
	})
	if err != nil {
		return err
	}
	return p.Release()
}
