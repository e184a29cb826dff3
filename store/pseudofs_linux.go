package store

import "golang.org/x/sys/unix"

// pseudoFS holds the f_type of file systems a sweep never descends into:
// their files are the kernel's, not the project's, and some never end
// (proc, sysfs, cgroup, debugfs and the like, found in a container's
// root file system under a project). Other mounts, a tmpfs say, are
// swept as any folder.
var pseudoFS = map[int64]bool{
	0x9fa0:     true, // proc
	0x62656572: true, // sysfs
	0x1cd1:     true, // devpts
	0x27e0eb:   true, // cgroup
	0x63677270: true, // cgroup2
	0x64626720: true, // debugfs
	0x74726163: true, // tracefs
	0x73636673: true, // securityfs
	0xcafe4a11: true, // bpf
	0x62656570: true, // configfs
	0x6165676c: true, // pstore
	0x65735543: true, // fusectl
	0x19800202: true, // mqueue
	0x42494e4d: true, // binfmt_misc
	0x6e736673: true, // nsfs
	0xde5e81e4: true, // efivarfs
	0x958458f6: true, // hugetlbfs
	0x0187:     true, // autofs
}

// isPseudoFS reports whether the folder fd is the root of a pseudo file
// system (see pseudoFS).
func isPseudoFS(fd int) bool {
	var st unix.Statfs_t
	return unix.Fstatfs(fd, &st) == nil && pseudoFS[int64(st.Type)]
}
