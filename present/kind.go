package present

// KindLetter marks a path whose kind changed (a folder became a file, a
// link a folder): git's letter for a type change. It takes the place of
// M; the other statuses keep their letters.
const KindLetter = "T"

// KindWord names what an image kind holds as a person says it: "file",
// "folder" or "link"; "" for nothing there (absent) or a kind not known.
// kind is the store's image kind ("content", "skipped", "dir",
// "symlink", …): a file too large to keep is a file all the same.
func KindWord[K ~string](kind K) string {
	switch string(kind) {
	case "content", "skipped":
		return "file"
	case "dir":
		return "folder"
	case "symlink":
		return "link"
	case "fifo":
		return "named pipe"
	case "socket":
		return "socket"
	case "device":
		return "device node"
	}
	return ""
}

// KindChange is "folder → file" when a path held one kind of entry
// before and another after, in the style of "mode 644 → 755"; "" when
// the kind is the same or either side holds nothing (a creation or a
// deletion says so itself).
func KindChange[K ~string](was, now K) string {
	a, b := KindWord(was), KindWord(now)
	if a == "" || b == "" || a == b {
		return ""
	}
	return a + " → " + b
}
