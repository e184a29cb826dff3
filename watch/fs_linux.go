package watch

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// Magic numbers of file systems whose events cannot be trusted: changes
// made on another machine (network file systems) or by another kernel
// (WSL's 9p and drvfs, FUSE servers) raise no inotify events here.
var untrustedFS = map[int64]string{
	0x6969:     "NFS",
	0x517B:     "SMB",
	0xFF534D42: "CIFS",
	0xFE534D42: "SMB2",
	0x65735546: "FUSE",
	0x01021997: "9p",
	0x00C36400: "Ceph",
	0x5346414F: "AFS",
	0x73757245: "Coda",
	0x47504653: "GPFS",
	0x0BD00BD0: "Lustre",
}

// untrusted says why events under root cannot be trusted, or "".
func untrusted(root string) string {
	var st unix.Statfs_t
	if err := unix.Statfs(root, &st); err == nil {
		if name, ok := untrustedFS[int64(st.Type)]; ok {
			return root + " is on a " + name + " file system, whose changes made elsewhere raise no events"
		}
	}
	if strings.HasPrefix(root, "/mnt/") {
		if v, err := os.ReadFile("/proc/version"); err == nil && strings.Contains(strings.ToLower(string(v)), "microsoft") {
			return root + " is a Windows drive under WSL, whose changes made from Windows raise no events"
		}
	}
	return ""
}
