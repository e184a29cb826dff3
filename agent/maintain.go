package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// maintain starts `ckpt maintain` in the background when the store may
// have work due (a repack, or a retention pass within the project's
// budget, which that process reads; see store.BackgroundWanted): at the
// end of a turn, and at the start of one too, for agents that send no
// end-of-turn event (or skipped it). Never in the hook itself, which an
// agent waits on: the process is detached — its own session, standard
// streams on /dev/null — so no agent waits on it and no hook's pipes
// stay open. Started at a turn's start it waits until the store has been
// left alone for store.MaintainQuiet, so its locks do not hold up the
// turn's hooks; a hook that finds one running or waiting starts none.
// CKPT_BACKGROUND=off turns it off (scripts, tests), and so does "auto":
// false in the project's config.
func (h *hookCall) maintain(whenQuiet bool) {
	if h.getenv("CKPT_BACKGROUND") == "off" {
		return
	}
	if err := StartMaintenance(h.store, h.root(), whenQuiet); err != nil {
		h.log("hook %s: %v", h.agent.name, err)
	}
}

// StartMaintenance starts the background pass for the store of the
// project at root when one is wanted (see maintain); with whenQuiet the
// pass waits for the store to be quiet first. `ckpt exec` calls it after
// its command.
func StartMaintenance(s interface{ BackgroundWanted() bool }, root string, whenQuiet bool) error {
	if !s.BackgroundWanted() {
		return nil
	}
	exe := ckptBinary()
	if exe == "" {
		return nil
	}
	quiet := time.Duration(0)
	if whenQuiet {
		quiet = store.MaintainQuiet
	}
	if err := startProcess(exe, "--root", root, "maintain", "--when-quiet", quiet.String()); err != nil {
		return fmt.Errorf("start %s maintain: %w", exe, err)
	}
	return nil
}

// startProcess is startDetached; tests replace it to see what would
// start.
var startProcess = startDetached

// ckptBinary is the ckpt command line beside the running binary: itself
// when it is ckpt, the ckpt next to it when it is ckpt-hook (which does
// not link the commands), else "" (a test binary).
var ckptBinary = func() string {
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
