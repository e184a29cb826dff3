#!/usr/bin/env bash
# bench-peers.sh — ckpt beside its peers, every one run side by side in this
# one run, on copies of $(go env GOROOT)/src (regular files under 8 MiB,
# sorted by path). It prints only what it measured here, as times, ratios
# and peak memory, with the machine it ran on.
#
# Peers:
#   py     the seed design's Python store (checkpoints_ref.py, JOURNAL=1, its
#          append-only variant), when its path is given
#   git    git hash-object --stdin-paths (the floor of reading and hashing
#          every file), git add -A (a bulk snapshot), git add -A && git stash
#          create (a per-turn snapshot), git checkout -- . (a bulk restore)
#   floor  rewriting the same files in place from memory, then one syncfs
#          (what a restore cannot beat); a Go hello-world and `ckpt --version`
#          (what a hook process cannot beat)
#
# Figures:
#   a) bulk capture of the first MAXFILES files
#   b) rewind of those files after a turn that changed all of them
#   c) a hooked turn on four copies of the first 4,686 files (18,744 files):
#      a prompt plus 4 Write tool calls as 9 `ckpt hook claude` processes, vs
#      one git add -A && git stash create
#   g) shell sweeps around a shell tool call, beside git snapshots (below)
#   d) the store's size after (a), in bytes and in disk blocks, vs raw and git
#   e) `ckpt log --json` on a seed-format index.json of 10,000 turns /
#      100,000 entries
#   f) peak memory (RSS) of (a) and (b) for each peer, and of capture, rewind
#      and undo of a BIGFILE-MiB file
#
# Usage: scripts/bench-peers.sh [--python PATH] [RUNS [MAXFILES [BIGFILE]]]
#   --python PATH  checkpoints_ref.py (or set CKPT_PY_REF); without it the
#                  Python columns say "not run"
#   RUNS           timed runs per figure (default 5; the median is shown)
#   MAXFILES       files in (a) and (b) (default 4686; 0 for all)
#   BIGFILE        size in MiB of the file in (f) (default 1024; 0 skips it)
# Needs bash, go, git, python3 for the seed index and the Python peer, GNU
# time (/usr/bin/time) for memory; uses hyperfine when installed.
set -euo pipefail

PYREF=${CKPT_PY_REF:-}
if [[ ${1:-} == --python ]]; then
	PYREF=$2
	shift 2
fi
RUNS=${1:-5}
MAXFILES=${2:-4686}
BIGFILE=${3:-1024}
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
GIT=(git -c init.defaultBranch=main)
if [[ -n $PYREF ]]; then
	PYREF=$(cd "$(dirname "$PYREF")" && pwd)/$(basename "$PYREF")
	[[ -f $PYREF ]] || { echo "no such file: $PYREF" >&2; exit 2; }
fi

say() { printf '%s\n' "$*" >&2; }

# --- clocks -----------------------------------------------------------------

if [[ $(date +%N) =~ ^[0-9]+$ ]]; then
	now_ns() { date +%s%N; }
else # BSD date has no %N
	now_ns() { perl -MTime::HiRes=time -e 'printf "%.0f\n", time*1e9'; }
fi
HYPERFINE=$(command -v hyperfine || true)

# bench PREPARE CMD: runs CMD $RUNS times, PREPARE (untimed) before each
# run, and prints the median in milliseconds.
bench() {
	local prepare=$1 cmd=$2
	if [[ -n $HYPERFINE ]]; then
		local csv=$WORK/hf-$RANDOM.csv
		"$HYPERFINE" --shell=bash --runs "$RUNS" --prepare "$prepare" --export-csv "$csv" "$cmd" >/dev/null 2>&1
		awk -F, 'NR==2 { printf "%.1f\n", $4*1000 }' "$csv" # median, seconds → ms
		return
	fi
	local times=() i t0 t1
	for ((i = 0; i < RUNS; i++)); do
		bash -c "$prepare" >/dev/null 2>&1
		t0=$(now_ns)
		bash -c "$cmd" >/dev/null 2>&1
		t1=$(now_ns)
		times+=($(((t1 - t0) / 1000)))
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f\n", m/1000 }'
}

# peak CMD...: the peak RSS in MiB of one run of CMD.
TIME=$(command -v gtime || echo /usr/bin/time)
peak() {
	if ! "$TIME" -f %M true >/dev/null 2>&1; then
		echo "-"
		return
	fi
	"$TIME" -o "$WORK/rss" -f %M "$@" >/dev/null 2>&1 || true
	awk '{ printf "%.0f MiB\n", $1/1024 }' "$WORK/rss"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && a != "-" && b > 0) printf "%.2fx", a/b; else print "-" }'; }
sumbytes() { find "$1" -type f -exec cat {} + 2>/dev/null | wc -c | tr -d ' '; }
dukb() { du -sk "$1" | cut -f1; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b/1048576 }'; }

# --- the trees --------------------------------------------------------------

say "building ckpt and the floor helpers…"
(cd "$REPO" && go build -o "$WORK/ckpt" .)
CKPT=$WORK/ckpt
mkdir -p "$WORK/floor" "$WORK/hello"
cat >"$WORK/floor/main.go" <<'EOF'
// floor rewrites files in place from memory: it reads the pristine bytes
// of every listed file (from SRC) into memory, then RUNS times appends a
// line to each file under DST (untimed) and times rewriting all of them in
// place, then one syncfs. It prints the median in milliseconds.
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"syscall"
	"time"
)

func main() {
	src, dst, list := os.Args[1], os.Args[2], os.Args[3]
	runs, _ := strconv.Atoi(os.Args[4])
	f, _ := os.Open(list)
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		names = append(names, sc.Text())
	}
	data := make([][]byte, len(names))
	for i, n := range names {
		data[i], _ = os.ReadFile(filepath.Join(src, n))
	}
	var ms []float64
	for r := 0; r < runs; r++ {
		for _, n := range names {
			f, _ := os.OpenFile(filepath.Join(dst, n), os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString("\n// edited\n")
			f.Close()
		}
		t0 := time.Now()
		for i, n := range names {
			f, err := os.OpenFile(filepath.Join(dst, n), os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				panic(err)
			}
			f.Write(data[i])
			f.Close()
		}
		if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
			d, _ := os.Open(dst)
			syscall.Syscall(306, d.Fd(), 0, 0) // syncfs
			d.Close()
		} else {
			syscall.Sync()
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
	}
	sort.Float64s(ms)
	fmt.Printf("%.1f\n", ms[len(ms)/2])
}
EOF
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$WORK/hello/main.go"
(cd "$WORK/floor" && GO111MODULE=off go build -o "$WORK/floor-rewrite" main.go)
(cd "$WORK/hello" && GO111MODULE=off go build -o "$WORK/hello-go" main.go)

SRC=$(go env GOROOT)/src
# --- shell sweeps ------------------------------------------------------------
# bench_shell: the sweep around a shell command, through the hook binary as
# Claude Code runs it, beside a whole-tree git snapshot (what shadow-git
# checkpointing pays per step), on four copies of the first 4,686 files of
# $SRC (18,744 files):
#   warm:  a shell step's two hook calls (PreToolUse + PostToolUse, one file
#          changed between) vs two `git add -A && git write-tree`: a later
#          command of a turn (its sweep before is skipped: the turn swept
#          already), and the first command of a turn (a prompt first, then
#          two full sweeps)
#   cold:  the first hook call on a fresh store (it keeps every file) vs
#          `git add -A` into a fresh repository
#   memory: peak RSS of a warm and a cold hook call, and of git's
#   store size: the warm step again once the store holds ~56,000 entries
# cpu_ms CMD: the median CPU time (user + system, the command and its
# children) of CMD over $RUNS runs, in ms: steadier than the wall clock on a
# loaded machine.
cpu_ms() {
	local i out=()
	for ((i = 0; i < RUNS; i++)); do
		out+=($({ /usr/bin/time -f '%U %S' bash -c "$1" >/dev/null 2>/dev/null; } 2>&1 | tail -1 | awk '{ printf "%.0f", ($1 + $2) * 1000 }'))
	done
	printf '%s\n' "${out[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}

bench_shell() {
	local S=$WORK/shell T=$WORK/shell/tree i
	mkdir -p "$T"
	(cd "$SRC" && find . -type f -size -8388608c | sed 's|^\./||' | LC_ALL=C sort | awk "NR <= 4686") >"$S/files"
	for i in 1 2 3 4; do
		mkdir -p "$T/copy$i"
		tar -C "$SRC" -cf - -T "$S/files" | tar -C "$T/copy$i" -xf -
	done
	local n
	n=$(find "$T" -type f | wc -l | tr -d ' ')
	local f1="$T/copy2/$(sed -n 1000p "$S/files")"
	local ev='"session_id":"bench","cwd":"'"$T"'","hook_event_name":"%s","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"t1"'
	printf "{$ev}\n" PreToolUse >"$S/pre.json"
	printf "{$ev}\n" PostToolUse >"$S/post.json"
	printf '{"session_id":"bench","cwd":"%s","hook_event_name":"UserPromptSubmit","prompt":"go"}\n' "$T" >"$S/prompt.json"
	cat >"$S/step" <<EOS
#!/usr/bin/env bash
"$CKPT" hook claude <"$S/pre.json" && printf '// %s\n' \$RANDOM >>"$f1" && "$CKPT" hook claude <"$S/post.json"
EOS
	cat >"$S/git-step" <<EOS
#!/usr/bin/env bash
cd "$T" && git add -A && git write-tree >/dev/null && printf '// %s\n' \$RANDOM >>"$f1" && git add -A && git write-tree >/dev/null
EOS
	cat >"$S/first-step" <<EOS
#!/usr/bin/env bash
"$CKPT" hook claude <"$S/prompt.json" && exec "$S/step"
EOS
	chmod +x "$S/step" "$S/git-step" "$S/first-step"
	# Files written in the last two seconds are re-read by every sweep
	# (racily clean): let the copy age past that, as a real tree has.
	sleep 3
	local cold cold_git warm warm_git first rss_cold rss_warm rss_git big
	cold=$(bench "rm -rf '$T/.osfoundry'" "cd '$T' && '$CKPT' hook claude <'$S/pre.json'")
	cold_git=$(bench "rm -rf '$T/.git'; cd '$T' && ${GIT[*]} init -q" "cd '$T' && git add -A")
	rm -rf "$T/.osfoundry"
	rss_cold=$( (cd "$T" && /usr/bin/time -f %M "$CKPT" hook claude <"$S/pre.json") 2>&1 >/dev/null | tail -1)
	"$S/step" && "$S/git-step"
	warm=$(bench "true" "'$S/step'")
	warm_git=$(bench "true" "'$S/git-step'")
	first=$(bench "true" "'$S/first-step'")
	local warm_cpu warm_git_cpu first_cpu
	warm_cpu=$(cpu_ms "'$S/step'")
	warm_git_cpu=$(cpu_ms "'$S/git-step'")
	first_cpu=$(cpu_ms "'$S/first-step'")
	rss_warm=$( (cd "$T" && /usr/bin/time -f %M "$CKPT" hook claude <"$S/pre.json") 2>&1 >/dev/null | tail -1)
	rss_git=$( (cd "$T" && /usr/bin/time -f %M git add -A) 2>&1 >/dev/null | tail -1)
	(cd "$T" && find . -path ./.osfoundry -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||' >"$S/all")
	for i in 1 2 3; do (cd "$T" && xargs -a "$S/all" -d '\n' "$CKPT" capture --turn "fill$i" >/dev/null); done
	big=$(bench "true" "'$S/step'")
	echo
	echo "shell sweeps: $n files (4 copies of the first 4,686 of $SRC), $RUNS runs each (median)"
	printf '%-58s %12s %14s %10s\n' "figure" "ckpt" "git" "git/ckpt"
	printf '%-58s %12s %14s %10s\n' "warm: shell step, 2 hook calls vs 2 add -A+write-tree (ms)" "$warm" "$warm_git" "$(ratio "$warm_git" "$warm")"
	printf '%-58s %12s %14s %10s\n' "   first command of a turn: prompt + 2 full sweeps (ms)" "$first" "$warm_git" "$(ratio "$warm_git" "$first")"
	printf '%-58s %12s %14s %10s\n' "   same, CPU time (user+sys, ms)" "$warm_cpu" "$warm_git_cpu" "$(ratio "$warm_git_cpu" "$warm_cpu")"
	printf '%-58s %12s %14s %10s\n' "   first command of a turn, CPU time (ms)" "$first_cpu" "$warm_git_cpu" "$(ratio "$warm_git_cpu" "$first_cpu")"
	printf '%-58s %12s %14s %10s\n' "cold: first hook call vs add -A into a fresh repo (ms)" "$cold" "$cold_git" "$(ratio "$cold_git" "$cold")"
	printf '%-58s %12s %14s %10s\n' "peak RSS: warm hook call / git add -A (KiB)" "$rss_warm" "$rss_git" "-"
	printf '%-58s %12s %14s %10s\n' "peak RSS: cold hook call (KiB)" "$rss_cold" "-" "-"
	printf '%-58s %12s %14s %10s\n' "warm step with ~$((3 * n)) more store entries (ms)" "$big" "-" "$(ratio "$big" "$warm") of empty"
}
bench_shell
