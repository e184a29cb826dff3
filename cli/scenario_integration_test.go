package cli

// Scenarios over whole folders: the five-way comparison with git, a store
// in the seed format, and a hostile index.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// makeTinySite builds the seeds' tiny site: a git repository with a
// committed page and stylesheet, then the user's own work on top — an
// uncommitted title change, an untracked notes.md, an ignored .env.
func makeTinySite(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(t, dir, "init", "-q")
	writeTexts(t, dir, map[string]string{
		"index.html": "<!doctype html>\n<html>\n<head>\n<title>My site</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n<h1>Welcome</h1>\n</body>\n</html>\n",
		"style.css":  "body { font-family: sans-serif; }\nh1 { color: navy; }\n",
		".gitignore": ".env\n",
	})
	gitRun(t, dir, "add", "index.html", "style.css", ".gitignore")
	gitRun(t, dir, "commit", "-q", "-m", "the site")
	// The user's work, none of it committed.
	writeTexts(t, dir, map[string]string{
		"index.html": "<!doctype html>\n<html>\n<head>\n<title>My site, now with a better title</title>\n<link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n<h1>Welcome</h1>\n</body>\n</html>\n",
		"notes.md":   "# notes\n- ask about the colours\n",
		".env":       "API_KEY=user-secret-1234\n",
	})
}

// agentTurnFiles are the paths the agent's turn writes.
var agentTurnFiles = []string{"index.html", "style.css", "theme.css", ".env"}

// agentTurn is the agent's turn: it edits the page and the stylesheet,
// creates theme.css and rewrites .env.
func agentTurn(t *testing.T, dir string) {
	t.Helper()
	writeTexts(t, dir, map[string]string{
		"index.html": "<!doctype html>\n<html>\n<head>\n<title>Restyled</title>\n<link rel=\"stylesheet\" href=\"theme.css\">\n</head>\n<body class=\"dark\">\n<h1>Welcome</h1>\n</body>\n</html>\n",
		"style.css":  "body { font-family: serif; background: #111; }\nh1 { color: gold; }\n",
		"theme.css":  ":root { --accent: gold; }\n",
		".env":       "API_KEY=agent-placeholder\nDEBUG=1\n",
	})
}

// undoPeer is one way of undoing the agent's turn: run does the whole turn
// (its own bookkeeping, the agent's edits, then the restore).
type undoPeer struct {
	name string
	run  func(t *testing.T, dir string)
}

var fiveWayPeers = []undoPeer{
	{"ckpt rewind 1 --yes", func(t *testing.T, dir string) {
		ckptOK(t, dir, append([]string{"capture", "--turn", "1", "--label", "restyle the page"}, agentTurnFiles...)...)
		agentTurn(t, dir)
		ckptOK(t, dir, append([]string{"seal", "--turn", "1"}, agentTurnFiles...)...)
		ckptOK(t, dir, "rewind", "1", "--yes")
	}},
	{"git checkout -- .", func(t *testing.T, dir string) {
		agentTurn(t, dir)
		gitRun(t, dir, "checkout", "--", ".")
	}},
	{"git stash -u", func(t *testing.T, dir string) {
		agentTurn(t, dir)
		gitRun(t, dir, "stash", "-u", "-q")
	}},
	{"git checkout -- . && git clean -fd", func(t *testing.T, dir string) {
		agentTurn(t, dir)
		gitRun(t, dir, "checkout", "--", ".")
		gitRun(t, dir, "clean", "-fdq")
	}},
	{"per-turn git stash create, then checkout + stash apply", func(t *testing.T, dir string) {
		sha := strings.TrimSpace(gitRun(t, dir, "stash", "create"))
		if sha == "" {
			t.Fatal("git stash create made no commit although index.html has changes")
		}
		agentTurn(t, dir)
		gitRun(t, dir, "checkout", "--", ".")
		gitRun(t, dir, "stash", "apply", "-q", sha)
	}},
}

func TestFiveWayScenario(t *testing.T) {
	base := t.TempDir()
	site := filepath.Join(base, "site")
	makeTinySite(t, site)
	before := snapshotDir(t, site)

	type row struct {
		name  string
		wrong []string
	}
	var rows []row
	for i, p := range fiveWayPeers {
		dir := filepath.Join(base, fmt.Sprintf("peer%d", i))
		copyTree(t, site, dir)
		statusBefore := gitRun(t, dir, "status", "--porcelain", "-uall")
		indexBefore := readText(t, dir, ".git/index")
		p.run(t, dir)
		rows = append(rows, row{p.name, diffPaths(before, snapshotDir(t, dir))})
		if i == 0 {
			// ckpt keeps away from git: its index and its view of the
			// folder are as they were.
			if readText(t, dir, ".git/index") != indexBefore {
				t.Errorf("ckpt changed .git/index")
			}
			if s := gitRun(t, dir, "status", "--porcelain", "-uall"); s != statusBefore {
				t.Errorf("git status after ckpt's rewind:\n%s\nbefore the turn:\n%s", s, statusBefore)
			}
			if d := snapshotDiff(before, snapshotDir(t, dir)); len(d) > 0 {
				t.Errorf("ckpt rewind did not restore the folder:\n  %s", strings.Join(d, "\n  "))
			}
		}
	}

	t.Logf("%-54s %-9s %s", "method", "exact?", "files not as before the turn")
	for _, r := range rows {
		exact := "yes"
		if len(r.wrong) > 0 {
			exact = "no"
		}
		t.Logf("%-54s %-9s %s", r.name, exact, strings.Join(r.wrong, ", "))
	}
	for _, r := range rows[1:] {
		if len(r.wrong) == 0 {
			t.Errorf("%s restored the folder exactly; the scenario should show what it loses", r.name)
		}
		// An ignored file is invisible to every git method.
		if !hasString(r.wrong, ".env") {
			t.Errorf("%s restored the ignored .env", r.name)
		}
	}
}

func hasString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// --- a store written in the seed format ---

// seedIndex is the seed format's index.json as read by the test.
type seedIndex []struct {
	Turn  json.RawMessage `json:"turn"`
	Label string          `json:"label"`
	At    int64           `json:"at"`
	Files []struct {
		Path string `json:"path"`
		Pre  struct {
			Kind   string `json:"kind"`
			SHA256 string `json:"sha256"`
		} `json:"pre"`
	} `json:"files"`
}

// seedTurnID is a seed turn id as ckpt shows it: always a string.
func seedTurnID(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// makeSeedProject lays testdata/seed out as a project: disk/ is the folder,
// blobs/ the raw blobs, and index.json.tmpl the index with {{ROOT}} standing
// for the project's absolute path.
func makeSeedProject(t *testing.T) (root string, idx seedIndex, indexJSON []byte) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "seed site")
	copyTree(t, filepath.Join("..", "testdata", "seed", "disk"), root)
	st := storeFolder(root)
	if err := os.MkdirAll(filepath.Dir(st), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(st, 0o700); err != nil {
		t.Fatal(err)
	}
	copyTree(t, filepath.Join("..", "testdata", "seed", "blobs"), filepath.Join(st, "blobs"))
	tmpl, err := os.ReadFile(filepath.Join("..", "testdata", "seed", "index.json.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	quoted, _ := json.Marshal(root)
	indexJSON = []byte(strings.ReplaceAll(string(tmpl), "{{ROOT}}", string(quoted[1:len(quoted)-1])))
	if err := os.WriteFile(filepath.Join(st, "index.json"), indexJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(indexJSON, &idx); err != nil {
		t.Fatal(err)
	}
	return root, idx, indexJSON
}

// relSeedPath makes a seed path relative to root.
func relSeedPath(root, p string) string {
	return filepath.ToSlash(strings.TrimPrefix(p, root+"/"))
}

// seedRewindModel computes, from the index alone, what rewinding turn
// from (every seed turn being active) leaves on disk: the oldest pre-image
// of each path among that turn and the later ones. skipped names the paths
// a rewind cannot restore.
func seedRewindModel(t *testing.T, root string, idx seedIndex, from string) (want map[string]fsNode, skipped []string) {
	t.Helper()
	want = filesOnly(snapshotDir(t, root))
	seen := map[string]bool{}
	on := false
	for _, turn := range idx {
		on = on || seedTurnID(turn.Turn) == from
		if !on {
			continue
		}
		for _, f := range turn.Files {
			p := relSeedPath(root, f.Path)
			if seen[p] {
				continue
			}
			seen[p] = true
			switch f.Pre.Kind {
			case "content":
				b, err := os.ReadFile(filepath.Join("..", "testdata", "seed", "blobs", f.Pre.SHA256))
				if err != nil {
					t.Fatal(err)
				}
				e, ok := want[p]
				if !ok {
					e = fsNode{Kind: 'f', Perm: 0o644}
				}
				e.Data = string(b)
				want[p] = e
			case "absent":
				delete(want, p)
			case "skipped":
				skipped = append(skipped, p)
			}
		}
	}
	if !on {
		t.Fatalf("no seed turn %s", from)
	}
	return want, skipped
}

// sameFiles compares two snapshots by kind and bytes only: a seed store
// keeps no modes, so a file it recreates has whatever mode ckpt chooses.
func sameFiles(want, got map[string]fsNode) []string {
	strip := func(s map[string]fsNode) map[string]fsNode {
		out := map[string]fsNode{}
		for p, e := range s {
			if e.Kind != 'd' {
				out[p] = fsNode{Kind: e.Kind, Data: e.Data}
			}
		}
		return out
	}
	return snapshotDiff(strip(want), strip(got))
}

func TestSeedFixtureBlobsAreNamedByTheirHash(t *testing.T) {
	ents, err := os.ReadDir(filepath.Join("..", "testdata", "seed", "blobs"))
	if err != nil || len(ents) == 0 {
		t.Fatalf("testdata/seed/blobs: %v (%d blobs)", err, len(ents))
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "seed", "blobs", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if hexSHA256(b) != e.Name() {
			t.Errorf("fixture blob %s holds bytes hashing to %s", e.Name(), hexSHA256(b))
		}
	}
}

func TestSeedStoreReadAsItIs(t *testing.T) {
	root, idx, indexJSON := makeSeedProject(t)
	disk := snapshotDir(t, root)
	blobsBefore := snapshotDir(t, filepath.Join(storeFolder(root), "blobs"))

	es := ckptLog(t, root)
	if len(es) != len(idx) {
		t.Fatalf("log --json: %d entries, index has %d turns: %+v", len(es), len(idx), es)
	}
	for i, e := range es {
		turn := idx[len(idx)-1-i] // newest first
		want := logRow{
			Turn: seedTurnID(turn.Turn), Label: turn.Label, Kind: "agent", State: "active",
			At: time.Unix(0, turn.At).UTC().Format(wantAtLayout), Files: len(turn.Files),
		}
		got := e
		got.Target, got.Turns, got.Source = "", nil, nil
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
			t.Errorf("log --json entry %d:\n got %+v\nwant %+v", i, got, want)
		}
	}

	wantStatus := map[string]map[string]string{
		"1":       {"index.html": "modified", "header.html": "created"},
		"fix-css": {"style.css": "modified", "big.bin": "skipped", "index.html": "modified"},
		"3":       {"docs/new.md": "created", "old.txt": "deleted", "readme.txt": "unchanged"},
	}
	for turn, want := range wantStatus {
		s := ckptShow(t, root, turn)
		if got := s.statuses(); len(got) != len(want) {
			t.Errorf("show %s --json: %+v, want %v", turn, s.Files, want)
		}
		for p, st := range want {
			if got := s.statuses()[p]; got != st {
				t.Errorf("show %s --json: %s is %q, want %q", turn, p, got, st)
			}
		}
	}
	r := ckptOK(t, root, "show", "fix-css")
	wantSubstrings(t, "show fix-css", r.Stdout, "style.css", "big.bin")

	r = ckptOK(t, root, "diff", "1", "index.html")
	wantSubstrings(t, "diff 1 index.html", r.Stdout, "+<!-- include header.html -->", `+<link rel="stylesheet" href="style.css">`)
	r = ckptOK(t, root, "diff", "3")
	wantSubstrings(t, "diff 3", r.Stdout, "-notes that turn 3 deleted", "+# New")

	if got, _ := os.ReadFile(filepath.Join(storeFolder(root), "index.json")); string(got) != string(indexJSON) {
		t.Errorf("read-only commands rewrote index.json")
	}
	requireSnapshot(t, root, disk, "read-only commands")

	// Rewinding a seed turn, in two fresh copies: fix-css (and 3 after it),
	// then 1 (and everything after it).
	for _, from := range []string{"fix-css", "1"} {
		t.Run("rewind "+from, func(t *testing.T) {
			root, idx, indexJSON := makeSeedProject(t)
			want, skipped := seedRewindModel(t, root, idx, from)
			o := ckptOp(t, root, 3, "rewind", from, "--yes")
			if !sameSet(o.failedPaths(), skipped) {
				t.Errorf("rewind %s failed %+v, want only the skipped %v", from, o.Failed, skipped)
			}
			if d := sameFiles(want, snapshotDir(t, root)); len(d) > 0 {
				t.Errorf("rewind %s:\n  %s", from, strings.Join(d, "\n  "))
			}
			if pathExists(filepath.Join(root, "docs")) {
				t.Logf("note: rewind %s left the folder docs/ (a seed store does not say a turn created it)", from)
			}
			es := ckptLog(t, root)
			if es[0].Kind != "rewind" || es[0].Target != from {
				t.Errorf("newest log entry after rewind %s: %+v", from, es[0])
			}
			for _, e := range es[1:] {
				wantState := "active"
				if from == "1" || e.Turn != "1" {
					wantState = "rewound"
				}
				if e.State != wantState {
					t.Errorf("after rewind %s, turn %s is %q, want %q", from, e.Turn, e.State, wantState)
				}
			}
			if got, _ := os.ReadFile(filepath.Join(storeFolder(root), "index.json")); string(got) != string(indexJSON) {
				t.Errorf("rewind rewrote the seed index.json; ckpt's own records are append-only")
			}
			if got := snapshotDir(t, filepath.Join(storeFolder(root), "blobs")); len(snapshotDiff(blobsBefore, filesOnly(got))) > 0 {
				for _, d := range snapshotDiff(blobsBefore, got) {
					if !strings.Contains(d, "unexpected") {
						t.Errorf("seed blob changed: %s", d)
					}
				}
			}
			// undo brings back the folder as it was before the rewind.
			ckptOp(t, root, 0, "undo", "--yes")
			if d := sameFiles(disk, snapshotDir(t, root)); len(d) > 0 {
				t.Errorf("undo of rewind %s:\n  %s", from, strings.Join(d, "\n  "))
			}
			ckptOK(t, root, "verify")
		})
	}
}

// --- a hostile index ---

func TestHostileIndex(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "proj")
	outside := filepath.Join(base, "outside")
	writeTexts(t, outside, map[string]string{
		"sentinel.txt": "sentinel: must never change\n",
		"secret.txt":   "secret from outside the root\n",
		"escape.txt":   "outside, reached through a link\n",
	})
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, n := range []string{"sentinel.txt", "secret.txt", "escape.txt"} {
		if err := os.Chtimes(filepath.Join(outside, n), old, old); err != nil {
			t.Fatal(err)
		}
	}
	evilName := "evil\x1b]0;owned\x07\x1b[2J.txt"
	writeTexts(t, root, map[string]string{
		"good.txt":    "agent wrote this\n",
		"created.txt": "agent made this\n",
		"victim1.txt": "victim 1 as the agent left it\n",
		"victim2.txt": "victim 2 as the agent left it\n",
		"victim3.txt": "victim 3 as the agent left it\n",
		evilName:      "a file with a hostile name\n",
	})
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	// Links that are themselves entries: writing through them, or deleting
	// what they point at, would reach outside.
	if err := os.Symlink(filepath.Join(outside, "sentinel.txt"), filepath.Join(root, "filelink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "escape.txt"), filepath.Join(root, "goner")); err != nil {
		t.Fatal(err)
	}
	blobs := filepath.Join(storeFolder(root), "blobs")
	if err := os.MkdirAll(blobs, 0o700); err != nil {
		t.Fatal(err)
	}
	blob := func(content string) map[string]any {
		sum := hexSHA256([]byte(content))
		if err := os.WriteFile(filepath.Join(blobs, sum), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return map[string]any{"kind": "content", "sha256": sum, "bytes": len(content)}
	}
	// A blob whose bytes do not match its name.
	tamperedSum := hexSHA256([]byte("victim 2 original\n"))
	if err := os.WriteFile(filepath.Join(blobs, tamperedSum), []byte("tampered bytes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	absent := map[string]any{"kind": "absent"}
	entry := func(path string, pre map[string]any) map[string]any {
		return map[string]any{"path": path, "pre": pre}
	}
	index := []map[string]any{{
		"turn": 1, "label": "hostile \x1b[31mred\x1b[0m label", "at": time.Now().UnixNano(),
		"files": []map[string]any{
			entry(root+"/good.txt", blob("good.txt before the agent\n")),
			entry(root+"/created.txt", absent),
			entry(root+"/"+evilName, absent),
			// Paths that lead out of the root.
			entry(root+"/../outside/sentinel.txt", blob("pwned via ..\n")),
			entry(outside+"/sentinel.txt", absent),
			entry("../outside/secret.txt", absent),
			entry(root+"/link/escape.txt", blob("pwned via a link\n")),
			entry(root+"/filelink", blob("pwned through a file link\n")),
			entry(root+"/goner", absent),
			// Blob names that are not a SHA-256, or whose bytes lie.
			entry(root+"/victim1.txt", map[string]any{"kind": "content", "sha256": "../../../../outside/secret.txt", "bytes": 29}),
			entry(root+"/victim2.txt", map[string]any{"kind": "content", "sha256": tamperedSum, "bytes": 18}),
			entry(root+"/victim3.txt", map[string]any{"kind": "content", "sha256": "../../etc/passwd", "bytes": 10}),
		},
	}}
	b, err := json.MarshalIndent(index, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(storeFolder(root), "index.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	outsideBefore := snapshotDir(t, outside)
	mtimes := func() map[string]time.Time {
		m := map[string]time.Time{}
		for _, n := range []string{"sentinel.txt", "secret.txt", "escape.txt"} {
			fi, err := os.Stat(filepath.Join(outside, n))
			if err != nil {
				t.Fatalf("outside file %s: %v", n, err)
			}
			m[n] = fi.ModTime()
		}
		return m
	}
	mtimesBefore := mtimes()
	checkOutside := func(after string) {
		t.Helper()
		requireSnapshot(t, outside, outsideBefore, "the folder outside the root after "+after)
		for n, m := range mtimes() {
			if !m.Equal(mtimesBefore[n]) {
				t.Errorf("after %s, %s outside the root has a new mtime", after, n)
			}
		}
	}

	// Views must not show what lies outside, nor let names paint the screen.
	var seen strings.Builder
	for _, args := range [][]string{{"log"}, {"show", "1"}, {"diff", "1"}, {"rewind", "1", "--dry-run"}} {
		r := ckpt(t, root, args...)
		if r.Killed || r.Code < 0 {
			t.Fatalf("crashed on a hostile index\n%s", r)
		}
		if strings.ContainsAny(r.Stdout, "\x1b\x07") {
			t.Errorf("ckpt %v printed a raw control character:\n%q", args, r.Stdout)
		}
		seen.WriteString(r.Stdout + r.Stderr)
	}
	checkOutside("log, show, diff")

	r := ckptCode(t, root, 3, "rewind", "1", "--yes", "--json")
	seen.WriteString(r.Stdout + r.Stderr)
	var o opDoc
	decodeJSON(t, r, &o)
	if strings.Contains(seen.String(), "secret from outside") {
		t.Errorf("ckpt showed the bytes of a file outside the root")
	}
	checkOutside("rewind")

	if got := readText(t, root, "good.txt"); got != "good.txt before the agent\n" {
		t.Errorf("good.txt holds %q after the rewind", got)
	}
	for _, n := range []string{"created.txt", evilName} {
		if pathExists(filepath.Join(root, n)) {
			t.Errorf("%q, created by the turn, survived the rewind", n)
		}
	}
	for i, n := range []string{"victim1.txt", "victim2.txt", "victim3.txt"} {
		want := fmt.Sprintf("victim %d as the agent left it\n", i+1)
		if got := readText(t, root, n); got != want {
			t.Errorf("%s holds %q after the rewind, want %q: a bad blob must never be written", n, got, want)
		}
	}
	if target, err := os.Readlink(filepath.Join(root, "link")); err != nil || target != outside {
		t.Errorf("the link in the root changed: %q, %v", target, err)
	}
	// filelink and goner lie in the root: replacing or removing the link
	// itself is fine, and so is refusing; following it is not.
	linkFailed := 0
	for _, n := range []string{"filelink", "goner"} {
		if hasString(o.failedPaths(), n) {
			linkFailed++
		}
	}
	if len(o.Failed)-linkFailed != 7 {
		t.Errorf("rewind failed %d entries besides the two links, want 7 (4 outside the root, 3 bad blobs): %+v", len(o.Failed)-linkFailed, o.Failed)
	}
	if !hasString(o.failedPaths(), "filelink") {
		if fi, err := os.Lstat(filepath.Join(root, "filelink")); err != nil || !fi.Mode().IsRegular() || readText(t, root, "filelink") != "pwned through a file link\n" {
			t.Errorf("filelink is neither failed nor restored as a regular file (%v, %v)", fi, err)
		}
	}
	for _, n := range []string{"victim1.txt", "victim2.txt", "victim3.txt"} {
		if !hasString(o.failedPaths(), n) {
			t.Errorf("rewind did not report %s as failed: %+v", n, o.Failed)
		}
	}
	for _, f := range o.Failed {
		if strings.TrimSpace(f.Reason) == "" {
			t.Errorf("failed %q without a reason", f.Path)
		}
	}
	if !hasString(o.Restored, "good.txt") || !hasString(o.Deleted, "created.txt") {
		t.Errorf("rewind restored %v deleted %v; want good.txt and created.txt", o.Restored, o.Deleted)
	}
}
