package setup

import (
	"fmt"
	"strings"
)

// clineInstaller is Cline's hooks: an executable script per event in
// .clinerules/hooks/, all installed or none.
func clineInstaller() filesInstaller {
	var files filesInstaller
	for _, ev := range clineEvents {
		files = append(files, ownedInstaller{
			file:   ".clinerules/hooks/" + ev,
			render: renderClineHook,
			find:   findClineExe,
			fmode:  0o755,
		})
	}
	return files
}

// clineHook is each hook file, for the binary's path quoted for sh. It
// exits 0 even when the binary is gone: Cline must never see ckpt fail.
const clineHook = `#!/bin/sh
# ckpt: keeps what Cline's tools are about to change, so that ckpt can show
# and rewind it. Written by ckpt install cline; ckpt uninstall cline removes
# it (an edited copy is left alone).
%s
exit 0
`

func renderClineHook(exe string) []byte {
	return []byte(fmt.Sprintf(clineHook, HookCommand(exe, "cline")))
}

func findClineExe(data []byte) (string, bool) {
	for _, line := range strings.Split(string(data), "\n") {
		if exe, ok := hookCommandExe(line, "cline"); ok {
			return exe, true
		}
	}
	return "", false
}

// clineEvents are the hook files install writes.
var clineEvents = []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "TaskComplete", "TaskCancel"}
