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
#          (what a durable restore cannot beat; also without the syncfs, as
#          git checkout does not sync); a Go hello-world and `ckpt --version`
#          (what a hook process cannot beat), and the turn script with
#          `true` as the hook (what the script itself costs)
#
# Figures:
#   a) bulk capture of the first MAXFILES files
#   b) rewind of those files after a turn that changed all of them, on a
#      synced file system and right after the edits
#   c) a hooked turn on four copies of the first 4,686 files (18,744 files):
#      a prompt plus 4 Write tool calls as 9 `ckpt-hook hook claude` processes
#      (and as `ckpt hook claude`), vs
#      one git add -A && git stash create
#   g) shell sweeps around a shell tool call, beside git snapshots (below)
#   d) the store's size after (a), in bytes and in disk blocks, vs raw and git
#   e) `ckpt log --json` on a seed-format index.json of 10,000 turns /
#      100,000 entries, and the UI's first frame on it (ui's Go benchmark)
#   f) peak memory (RSS) of (a) and (b) for each peer, and of capture, rewind
#      and undo of a BIGFILE-MiB file
#
# Usage: scripts/bench-peers.sh [--python PATH] [RUNS [MAXFILES [BIGFILE]]]
#   --python PATH  checkpoints_ref.py (or set CKPT_PY_REF); without it the
#                  Python columns say "not run"
#   RUNS           timed runs per figure (default 5; the median is shown)
#   MAXFILES       files in (a) and (b) (default 4686; 0 for all)
#   BIGFILE        size in MiB of the file in (f) (default 1024; 0 skips it)
# CKPT_BENCH_ONLY=big runs only the big trees, =long only the long session.
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
# No automatic gc: a commit of thousands of files would start one in the
# background, which would run beside the timed commands and race the
# removal of a measured tree.
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=gc.auto GIT_CONFIG_VALUE_0=0
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

# bench PREPARE CMD: runs CMD $RUNS times, PREPARE and then a sync
# (untimed) before each run, and prints the median in milliseconds. The
# sync keeps a run from paying for writing back what the prepare step or
# an earlier figure left dirty: ckpt's barrier (syncfs) would otherwise
# flush it, while git, which does not sync, leaves it to the kernel. With
# NOSYNC set there is no sync: the prepare step's writes are still in
# memory when CMD runs.
bench() {
	local prepare=$1 cmd=$2
	[[ -n ${NOSYNC:-} ]] || prepare+=$'\n'sync
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
# cpu_ms CMD: the median CPU time (user + system, the command and its
# children) of CMD over $RUNS runs, in ms to the microsecond: steadier than
# the wall clock on a loaded machine.
cpu_ms() { "$WORK/cputime-bin" "$RUNS" "$1"; }
sumbytes() { find "$1" -type f -exec cat {} + 2>/dev/null | wc -c | tr -d ' '; }
dukb() { du -sk "$1" | cut -f1; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b/1048576 }'; }

# --- the trees --------------------------------------------------------------

say "building ckpt and the floor helpers…"
(cd "$REPO" && CGO_ENABLED=0 go build -o "$WORK/ckpt" .) # static, as README installs it,
(cd "$REPO" && CGO_ENABLED=0 go build -o "$WORK/ckpt-hook" ./cmd/ckpt-hook) # and what install points hooks at
(cd "$REPO" && CGO_ENABLED=1 go build -o "$WORK/ckpt-libc" .) || cp "$WORK/ckpt" "$WORK/ckpt-libc"
CKPT=$WORK/ckpt
HOOK=$WORK/ckpt-hook
mkdir -p "$WORK/floor" "$WORK/hello"
cat >"$WORK/floor/main.go" <<'EOF'
// floor rewrites files in place from memory: it reads the pristine bytes
// of every listed file (from SRC) into memory, then RUNS times appends a
// line to each file under DST and syncs (untimed) and times rewriting all
// of them in place, then one syncfs (none when a fifth argument says
// nosync). It prints the median in milliseconds.
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
		syscall.Sync() // as bench's prepare step: the edits are not the rewrite's to flush
		t0 := time.Now()
		for i, n := range names {
			f, err := os.OpenFile(filepath.Join(dst, n), os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				panic(err)
			}
			f.Write(data[i])
			f.Close()
		}
		if len(os.Args) > 5 && os.Args[5] == "nosync" {
			// no barrier, as git checkout
		} else if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" {
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
mkdir -p "$WORK/same"
cat >"$WORK/same/main.go" <<'EOF'
// same DIR LIST writes every listed file under DIR back in place with the
// bytes it holds: its pages dirty and its times new, its contents as they
// were (an editor saving a file it did not change).
package main

import (
	"bufio"
	"os"
	"path/filepath"
)

func main() {
	f, _ := os.Open(os.Args[2])
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := filepath.Join(os.Args[1], sc.Text())
		data, err := os.ReadFile(p)
		if err != nil {
			panic(err)
		}
		w, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			panic(err)
		}
		w.WriteAt(data, 0)
		w.Close()
	}
}
EOF
mkdir -p "$WORK/interleave"
cat >"$WORK/interleave/main.go" <<'EOF'
// interleave RUNS CMD [ARG...] [::: CMD [ARG...]]...: runs the commands in
// turn, RUNS rounds, a sync (untimed) before each, and prints each one's
// median in milliseconds, a line each. Taking turns, every command sees
// the same moments of a shared machine: a busy spell slows them alike
// instead of one of them alone, as timing each in a batch of its own can.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"syscall"
	"time"
)

func main() {
	runs, _ := strconv.Atoi(os.Args[1])
	var cmds [][]string
	cur := []string{}
	for _, a := range os.Args[2:] {
		if a == ":::" {
			cmds, cur = append(cmds, cur), []string{}
			continue
		}
		cur = append(cur, a)
	}
	cmds = append(cmds, cur)
	ms := make([][]float64, len(cmds))
	for r := 0; r < runs; r++ {
		for i, c := range cmds {
			syscall.Sync()
			cmd := exec.Command(c[0], c[1:]...)
			t0 := time.Now()
			if err := cmd.Run(); err != nil {
				fmt.Fprintln(os.Stderr, c, err)
				os.Exit(1)
			}
			ms[i] = append(ms[i], float64(time.Since(t0).Microseconds())/1000)
		}
	}
	for _, m := range ms {
		sort.Float64s(m)
		fmt.Printf("%.1f\n", m[len(m)/2])
	}
}
EOF
mkdir -p "$WORK/cputime"
cat >"$WORK/cputime/main.go" <<'EOF'
// cputime RUNS SCRIPT: runs `bash -c SCRIPT` RUNS times and prints the
// median CPU time (user + system, of bash and every child it waited
// for, as wait4 reports it) in milliseconds, to the microsecond: GNU
// time's %U and %S have a resolution of 10 ms, as long as a step.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
)

func main() {
	runs, _ := strconv.Atoi(os.Args[1])
	var ms []float64
	for r := 0; r < runs; r++ {
		cmd := exec.Command("bash", "-c", os.Args[2])
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, os.Args[2], err)
			os.Exit(1)
		}
		ps := cmd.ProcessState
		ms = append(ms, float64((ps.UserTime()+ps.SystemTime()).Microseconds())/1000)
	}
	sort.Float64s(ms)
	fmt.Printf("%.1f\n", ms[len(ms)/2])
}
EOF
(cd "$WORK/floor" && GO111MODULE=off go build -o "$WORK/floor-rewrite" main.go)
(cd "$WORK/cputime" && GO111MODULE=off go build -o "$WORK/cputime-bin" main.go)
(cd "$WORK/hello" && GO111MODULE=off go build -o "$WORK/hello-go" main.go)
(cd "$WORK/interleave" && GO111MODULE=off go build -o "$WORK/interleave-bin" main.go)
(cd "$WORK/same" && GO111MODULE=off go build -o "$WORK/same-bytes" main.go)

SRC=$(go env GOROOT)/src
(cd "$SRC" && find . -type f -size -8388608c | sed 's|^\./||' | LC_ALL=C sort) >"$WORK/all"
cp "$WORK/all" "$WORK/files"
if ((MAXFILES > 0)); then head -n "$MAXFILES" "$WORK/all" >"$WORK/files"; fi
NFILES=$(wc -l <"$WORK/files" | tr -d ' ')
TREE=$WORK/tree
mkdir -p "$TREE"
tar -C "$SRC" -cf - -T "$WORK/files" | tar -C "$TREE" -xf -
PRISTINE=$WORK/pristine
cp -R "$TREE" "$PRISTINE"
RAW=$(sumbytes "$TREE")
say "tree: $NFILES files, $(mib "$RAW") from $SRC"

BIN=$WORK/bin
mkdir -p "$BIN"
# ckpt-capture ROOT TURN: one capture of every file of the list, read from
# standard input as git hash-object --stdin-paths reads it
cat >"$BIN/ckpt-capture" <<EOF
#!/usr/bin/env bash
cd "\$1" && exec "$CKPT" capture --turn "\$2" --stdin-paths <"$WORK/files"
EOF
cat >"$BIN/ckpt-seal" <<EOF
#!/usr/bin/env bash
cd "\$1" && exec "$CKPT" seal --turn "\$2" --stdin-paths <"$WORK/files"
EOF
cat >"$BIN/py-capture" <<EOF
#!/usr/bin/env bash
cd "\$1" && mapfile -t f <"$WORK/files" && JOURNAL=1 exec python3 "$PYREF" "\$1" capture "\$2" bench "\${f[@]}"
EOF
# edit-all DIR: every file gets a line more (the agent's turn)
cat >"$BIN/edit-all" <<EOF
#!/usr/bin/env bash
cd "\$1" && while IFS= read -r f; do printf '\n// edited by the agent\n' >>"\$f"; done <"$WORK/files"
EOF
cat >"$BIN/git-fresh" <<EOF
#!/usr/bin/env bash
rm -rf "\$1/.git" && cd "\$1" && git -c init.defaultBranch=main init -q
EOF
chmod +x "$BIN"/*
export CKPT_ROOT=

declare -a ROWS
row() { ROWS+=("$(printf '%-52s %10s %10s %12s' "$@")"); }
sep() { ROWS+=(""); ROWS+=("$1"); }

# --- big trees: shell steps at 23k, 100k and 300k files ------------------------
# bench_big: a shell step through the hook binary (as Claude Code runs it)
# on trees of copies of $SRC (regular files under 8 MiB; 2, 9 and 26
# copies: about 23k, 103k and 298k files), each committed in git so git's
# figures are fair, beside `git status` and `git -c core.untrackedCache=true
# status` (after `git update-index --untracked-cache` and a first status):
#   later:  a later command of a turn (its sweep before skipped, one file
#           changed, the sweep after), with the background watcher running,
#           and with it off (CKPT_WATCHER=off: every sweep lists the tree)
#   first:  the first command of a turn (a prompt, both sweeps), watcher on
#   memory: peak RSS of the sweep after a later command, watcher on and off
# All of a tree's commands take turns (interleave), $BIG_RUNS rounds
# (default 11), so ratios come from the same moments of the machine.
# git status runs with GIT_OPTIONAL_LOCKS=0, so it never rewrites git's
# index between ckpt's steps (it would, to refresh the stat data it
# caches): ckpt's next sweep would then hash the new index, 35 MB at
# 300k files, which is the cost of the git command that wrote it, not of
# the step measured. git's own figures then leave out its index write.
# BIG_SIZES (default "2 9 26") is the copies per tree; each tree is
# deleted once measured, and skipped when the disk lacks room for it.
# With BIG_KEEP=DIR the trees are built under DIR and kept there, and a
# later run reuses them (with a fresh store; the edited file put back).
bench_big() {
	local sizes=${BIG_SIZES:-2 9 26} runs=${BIG_RUNS:-11} copies B T n i f1 need avail keep=${BIG_KEEP:-}
	local ev='"session_id":"big","cwd":"%s","hook_event_name":"%s","tool_name":"Bash","tool_input":{"command":"make"},"tool_use_id":"t1","prompt":"go"'
	BIG_ROWS=()
	for copies in $sizes; do
		B=$WORK/big$copies T=${keep:-$WORK}/big$copies/tree
		mkdir -p "$B"
		f1="$T/copy1/$(sed -n 1000p "$WORK/all")"
		if [[ -n $keep && -f $T/.git/big-done ]]; then
			say "big: reusing $T…"
			(cd "$T" && { "$CKPT" watch --stop >/dev/null 2>&1 || true; } && rm -rf .osfoundry && git checkout -q -- . &&
				git -c core.untrackedCache=true status >/dev/null && git status >/dev/null)
		else
			need=$((copies * $(du -sk "$SRC" | cut -f1) * 2)) # the copies and git's objects
			avail=$(df -Pk "$WORK" | awk 'NR==2 { print $4 }')
			if ((avail < need + 1048576)); then
				say "big: $copies copies need $((need >> 10)) MiB, $((avail >> 10)) MiB free: skipped"
				continue
			fi
			say "big: $copies copies of $SRC…"
			rm -rf "$T" && mkdir -p "$T"
			for ((i = 1; i <= copies; i++)); do
				mkdir -p "$T/copy$i"
				tar -C "$SRC" -cf - -T "$WORK/all" | tar -C "$T/copy$i" -xf -
			done
			(cd "$T" && "${GIT[@]}" init -q && printf '.osfoundry/\n' >.git/info/exclude && git add -A && git commit -q -m tree &&
				git update-index --untracked-cache && git -c core.untrackedCache=true status >/dev/null && git status >/dev/null &&
				touch .git/big-done)
		fi
		n=$(find "$T" -path "$T/.git" -prune -o -type f -print | wc -l | tr -d ' ')
		printf "{$ev}\n" "$T" PreToolUse >"$B/pre.json"
		printf "{$ev}\n" "$T" PostToolUse >"$B/post.json"
		printf "{$ev}\n" "$T" UserPromptSubmit >"$B/prompt.json"
		# step [off]: a later command of the turn; first: a new turn's first.
		cat >"$B/step" <<EOS
#!/usr/bin/env bash
[[ \${1:-} == off ]] && export CKPT_WATCHER=off
"$HOOK" hook claude <"$B/pre.json" && printf '// %s\n' \$RANDOM >>"$f1" && "$HOOK" hook claude <"$B/post.json"
EOS
		cat >"$B/first" <<EOS
#!/usr/bin/env bash
"$HOOK" hook claude <"$B/prompt.json" && exec "$B/step"
EOS
		cat >"$B/git-status" <<EOS
#!/usr/bin/env bash
cd "$T" && GIT_OPTIONAL_LOCKS=0 exec git -c core.untrackedCache=\${1:-false} status --porcelain >/dev/null
EOS
		cat >"$B/post-off" <<EOS
#!/usr/bin/env bash
CKPT_WATCHER=off exec "$HOOK" hook claude <"$B/post.json"
EOS
		chmod +x "$B/step" "$B/first" "$B/git-status" "$B/post-off"
		local t0 first_sweep
		t0=$(now_ns)
		(cd "$T" && "$HOOK" hook claude <"$B/prompt.json" && "$HOOK" hook claude <"$B/pre.json")
		first_sweep=$((($(now_ns) - t0) / 1000000))
		# The copy ages past the racy window, the watcher starts (the
		# first step starts it) and answers a sweep (watch.token).
		sleep 3
		for ((i = 0; i < 50; i++)); do
			"$B/step" >/dev/null 2>&1
			[[ -f $T/.osfoundry/checkpoints/watch.token ]] && break
			sleep 0.2
		done
		"$B/step" off >/dev/null && "$B/step" >/dev/null
		local R=()
		mapfile -t R < <("$WORK/interleave-bin" "$runs" \
			"$B/step" ::: "$B/step" off ::: "$B/first" ::: "$B/git-status" false ::: "$B/git-status" true)
		((${#R[@]} == 5)) || { say "big: the interleaved runs failed"; return 1; }
		local rss_on rss_off
		"$B/step" >/dev/null
		"$HOOK" hook claude <"$B/pre.json"
		rss_on=$( (/usr/bin/time -f %M "$HOOK" hook claude <"$B/post.json") 2>&1 >/dev/null | tail -1)
		"$HOOK" hook claude <"$B/pre.json"
		rss_off=$( (/usr/bin/time -f %M "$B/post-off") 2>&1 >/dev/null | tail -1)
		BIG_ROWS+=("$(printf '%8s %10s %10s %10s %10s %10s %8s %8s %9s %9s %9s' "$n" "${R[0]}" "${R[1]}" "${R[2]}" "${R[3]}" "${R[4]}" \
			"$(ratio "${R[1]}" "${R[4]}")" "$(ratio "${R[0]}" "${R[4]}")" "$((rss_on >> 10))" "$((rss_off >> 10))" "$first_sweep")")
		(cd "$T" && "$CKPT" watch --stop >/dev/null 2>&1 || true)
		rm -rf "$B" 2>/dev/null || { sleep 2; rm -rf "$B"; }
		[[ -n $keep ]] || rm -rf "${T%/tree}"
	done
	echo
	echo "big trees: a shell step through ckpt-hook, $runs rounds interleaved (median ms), $(date -u +%Y-%m-%dT%H:%MZ)"
	printf '%8s %10s %10s %10s %10s %10s %8s %8s %9s %9s %9s\n' files "later,w" "later,no-w" "first,w" "git st" "git st UC" "no-w/UC" "w/UC" "MiB,w" "MiB,no-w" "1st sweep"
	printf '%s\n' "${BIG_ROWS[@]}"
	echo "later: a later command of a turn (sweep before skipped, one file changed, sweep after); first: a new"
	echo "turn's first command (prompt + both sweeps); w: the background watcher running, no-w: CKPT_WATCHER=off;"
	echo "MiB: peak RSS of the sweep after a later command; 1st sweep: the first sweep of the tree (ms, once)."
}
# --- long session --------------------------------------------------------------
# bench_long: a long session and a long log, from the store's Go benchmarks
# (run here), then the ckpt binary on what they leave:
#   the session: a copy of the first 4,686 files of $SRC, then 2,000 turns
#     of 5 edits, every fourth one also a shell step writing 12 files (500
#     shell steps), with the background pass after each turn as the hooks
#     run it (BenchmarkLongSession);
#   a 12-file sweep in that store vs in a fresh store of the same tree;
#   the packs after the session (verify --json), the store's size (du)
#     against the budget (doctor's line), and after `ckpt maintain --now`
#     within a budget of half the store;
#   `ckpt log --json` and the UI's first frame at 2,000 and 20,000 turns of
#     5 sealed files each (BenchmarkLogTurns: with the summary file, and
#     without it, every turn file read), and `ckpt log --json` by the
#     binary on those stores, the summary file in place and removed.
bench_long() {
	local L=$WORK/long out
	mkdir -p "$L/tmp"
	say "long session: 2,000 turns and 500 shell steps, and logs of 2,000 and 20,000 turns (Go benchmarks)…"
	out=$(cd "$REPO" && TMPDIR=$L/tmp CKPT_BENCH_LONG_DIR=$L go test ./store -run '^$' -timeout 2h \
		-bench '^(BenchmarkLongSession|BenchmarkLogTurns|BenchmarkShowTurns)$' -benchtime "${RUNS}x" 2>&1) || { say "$out"; return 1; }
	local n
	for n in 2000 20000; do
		out+=$'\n'$(cd "$REPO" && CKPT_BENCH_TURNS_STORE=$L/tmp/ckpt-bench/turns-$n go test ./ui -run '^$' \
			-bench '^BenchmarkFirstFrameTurns$' -benchtime "${RUNS}x" 2>&1 | sed "s|^BenchmarkFirstFrameTurns|BenchmarkFirstFrameTurns/turns=$n|") || { say "$out"; return 1; }
	done
	# ms of a benchmark line's ns/op; metric NAME of it.
	long_ms() { awk -v n="$1" '$1 ~ "^"n"(-[0-9]+)?$" { printf "%.1f", $3/1e6; exit }' <<<"$out"; }
	long_metric() { awk -v n="$1" -v m="$2" '$1 ~ "^"n"(-[0-9]+)?$" { for (i = 4; i < NF; i++) if ($(i+1) == m) { print $i; exit } }' <<<"$out"; }
	local fresh long packs mib
	fresh=$(long_ms BenchmarkLongSession/sweep12/fresh)
	long=$(long_ms BenchmarkLongSession/sweep12/long)
	packs=$(long_metric BenchmarkLongSession/sweep12/long session-packs)
	mib=$(long_metric BenchmarkLongSession/sweep12/long session-MiB)
	local S=$L/long
	local vpacks vloose du_before budget du_after packs_after doctor_before doctor_after
	vpacks=$(cd "$S" && "$CKPT" verify --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("packs","-"), d.get("loose","-"))')
	du_before=$(du -sh "$S/.osfoundry/checkpoints" | cut -f1)
	doctor_before=$(cd "$S" && { "$CKPT" doctor 2>&1 || true; } | grep -i -m1 'budget' || true)
	budget=$(($(du -sk "$S/.osfoundry/checkpoints" | cut -f1) / 2))
	printf '{"retention": {"max_size": "%dKiB", "keep": 20}}\n' "$budget" >"$S/.osfoundry/ckpt.json"
	(cd "$S" && "$CKPT" maintain --now >/dev/null)
	du_after=$(du -sh "$S/.osfoundry/checkpoints" | cut -f1)
	packs_after=$(cd "$S" && "$CKPT" verify --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("packs","-"), d.get("loose","-"))')
	doctor_after=$(cd "$S" && { "$CKPT" doctor 2>&1 || true; } | grep -i -m1 'budget' || true)
	local -A LOGB
	for n in 2000 20000; do
		local D=$L/tmp/ckpt-bench/turns-$n
		(cd "$D" && "$CKPT" log --json >/dev/null) # the summary, as the benchmarks left it
		LOGB[$n-sum]=$(bench "true" "cd '$D' && '$CKPT' log --json >/dev/null")
		LOGB[$n-cpu]=$(cpu_ms "cd '$D' && '$CKPT' log --json >/dev/null")
		LOGB[$n-rss]=$(cd "$D" && peak "$CKPT" log --json)
		LOGB[$n-show]=$(bench "true" "cd '$D' && '$CKPT' show $((n / 2)) --json >/dev/null")
		LOGB[$n-showcpu]=$(cpu_ms "cd '$D' && '$CKPT' show $((n / 2)) --json >/dev/null")
		LOGB[$n-showrss]=$(cd "$D" && peak "$CKPT" show $((n / 2)) --json)
		LOGB[$n-nosum]=$(bench "rm -f '$D/.osfoundry/checkpoints/summary'" "cd '$D' && '$CKPT' log --json >/dev/null")
	done
	echo
	echo "long session: 2,000 turns of 5 edits + 500 shell steps of 12 files on the first 4,686 files of $SRC ($RUNS runs each, median/mean)"
	printf '%-62s %12s %12s %10s\n' "figure" "ckpt" "vs" "ratio"
	printf '%-62s %12s %12s %10s\n' "12-file sweep after the session vs in a fresh store (ms)" "$long" "$fresh" "$(ratio "$long" "$fresh")"
	printf '%-62s %12s %12s %10s\n' "packs after the session (benchmark; verify --json packs loose)" "$packs" "$vpacks" "-"
	printf '%-62s %12s %12s %10s\n' "store after the session (MiB of files; du)" "$mib" "$du_before" "-"
	printf '%-62s %12s\n' "   doctor:" "$doctor_before"
	printf '%-62s %12s %12s %10s\n' "after maintain --now within ${budget} KiB (du; packs loose)" "$du_after" "$packs_after" "-"
	printf '%-62s %12s\n' "   doctor:" "$doctor_after"
	for n in 2000 20000; do
		printf '%-62s %12s %12s %10s\n' "log --json, $n turns: summary vs every turn read (ms, Go)" \
			"$(long_ms "BenchmarkLogTurns/turns=$n/status=true/summary=true")" "$(long_ms "BenchmarkLogTurns/turns=$n/status=true/summary=false")" \
			"$(ratio "$(long_ms "BenchmarkLogTurns/turns=$n/status=true/summary=false")" "$(long_ms "BenchmarkLogTurns/turns=$n/status=true/summary=true")")"
		printf '%-62s %12s %12s %10s\n' "   the UI's first frame (Log without status; ms, Go)" \
			"$(long_ms "BenchmarkLogTurns/turns=$n/status=false/summary=true")" "$(long_ms "BenchmarkLogTurns/turns=$n/status=false/summary=false")" \
			"$(ratio "$(long_ms "BenchmarkLogTurns/turns=$n/status=false/summary=false")" "$(long_ms "BenchmarkLogTurns/turns=$n/status=false/summary=true")")"
		printf '%-62s %12s %12s %10s\n' "   ckpt log --json, the binary: summary vs removed first (ms)" "${LOGB[$n-sum]}" "${LOGB[$n-nosum]}" "$(ratio "${LOGB[$n-nosum]}" "${LOGB[$n-sum]}")"
		printf '%-62s %12s %12s %10s\n' "   ckpt log --json, the binary: CPU ms, peak RSS" "${LOGB[$n-cpu]}" "${LOGB[$n-rss]}" "-"
		printf '%-62s %12s %12s %10s\n' "   ckpt show $((n / 2)) --json, the binary: ms, CPU ms, peak RSS" "${LOGB[$n-show]}" "${LOGB[$n-showcpu]}" "${LOGB[$n-showrss]}"
		printf '%-62s %12s %12s %10s\n' "   Show of turn $((n / 2)) (Go): summary vs every turn read (ms)" \
			"$(long_ms "BenchmarkShowTurns/turns=$n/turn=$((n / 2))/summary=true")" "$(long_ms "BenchmarkShowTurns/turns=$n/turn=$((n / 2))/summary=false")" \
			"$(ratio "$(long_ms "BenchmarkShowTurns/turns=$n/turn=$((n / 2))/summary=false")" "$(long_ms "BenchmarkShowTurns/turns=$n/turn=$((n / 2))/summary=true")")"
		printf '%-62s %12s %12s %10s\n' "   the UI's first frame, open to View (Go): ms, CPU ms" \
			"$(long_ms "BenchmarkFirstFrameTurns/turns=$n")" "$(long_metric "BenchmarkFirstFrameTurns/turns=$n" cpu-ms/op)" "-"
	done
	echo "(uptime: $(uptime | sed 's/.*load average/load average/'))"
}
case ${CKPT_BENCH_ONLY:-} in
big)
	bench_big
	exit
	;;
long)
	bench_long
	exit
	;;
esac

# --- a) bulk capture ---------------------------------------------------------

say "a) bulk capture of $NFILES files…"
A_FLOOR=$(bench "true" "cd '$TREE' && git hash-object --stdin-paths <'$WORK/files'")
A_CKPT=$(bench "rm -rf '$TREE/.osfoundry'" "'$BIN/ckpt-capture' '$TREE' 1")
rm -rf "$TREE/.osfoundry"
A_CKPT_RSS=$(peak "$BIN/ckpt-capture" "$TREE" 1)
STORE_A=$(sumbytes "$TREE/.osfoundry")
STORE_A_DU=$(dukb "$TREE/.osfoundry")
GITTREE=$WORK/gittree
cp -R "$PRISTINE" "$GITTREE"
A_GIT=$(bench "'$BIN/git-fresh' '$GITTREE'" "cd '$GITTREE' && git add -A")
"$BIN/git-fresh" "$GITTREE"
A_GIT_RSS=$(peak bash -c "cd '$GITTREE' && git add -A")
GIT_OBJ=$(sumbytes "$GITTREE/.git/objects")
GIT_OBJ_DU=$(dukb "$GITTREE/.git/objects")
(cd "$GITTREE" && git commit -q -m tree)
A_PY=- A_PY_RSS=-
if [[ -n $PYREF ]]; then
	PYTREE=$WORK/pytree
	cp -R "$PRISTINE" "$PYTREE"
	A_PY=$(bench "rm -rf '$PYTREE/.osfoundry'" "'$BIN/py-capture' '$PYTREE' 1")
	rm -rf "$PYTREE/.osfoundry"
	A_PY_RSS=$(peak "$BIN/py-capture" "$PYTREE" 1)
fi

# --- b) rewind of every file -------------------------------------------------

say "b) rewind of $NFILES files…"
RW=$WORK/rewind
cp -R "$PRISTINE" "$RW"
"$BIN/ckpt-capture" "$RW" 1 >/dev/null
"$BIN/edit-all" "$RW"
"$BIN/ckpt-seal" "$RW" 1 >/dev/null
# Each timed rewind starts from the edited folder: the prepare step undoes
# the previous rewind (the first has nothing to undo) and writes each file
# back as it is, as git's prepare step edits each file, so that both find
# every file written since their last look.
B_PREP="cd '$RW' && { '$CKPT' undo --yes >/dev/null 2>&1 || true; } && '$WORK/same-bytes' '$RW' '$WORK/files'"
B_CKPT=$(bench "$B_PREP" "cd '$RW' && '$CKPT' rewind 1 --yes")
(cd "$RW" && "$CKPT" undo --yes >/dev/null)
B_CKPT_RSS=$(peak bash -c "cd '$RW' && exec '$CKPT' rewind 1 --yes")
B_GIT=$(bench "'$BIN/edit-all' '$GITTREE'" "cd '$GITTREE' && git checkout -- .")
"$BIN/edit-all" "$GITTREE"
B_GIT_RSS=$(peak bash -c "cd '$GITTREE' && exec git checkout -- .")
# The same two right after the edits, not yet written back (the kernel
# writes dirty pages back after about 30 s): git checkout replaces each
# file, and the edits' pages are dropped unwritten; a rewind keeps them
# first and overwrites in place, so its barrier writes them.
B_CKPT_DIRTY=$(NOSYNC=1 bench "$B_PREP" "cd '$RW' && '$CKPT' rewind 1 --yes")
B_GIT_DIRTY=$(NOSYNC=1 bench "'$BIN/edit-all' '$GITTREE'" "cd '$GITTREE' && git checkout -- .")
FLOORTREE=$WORK/floortree
cp -R "$PRISTINE" "$FLOORTREE"
B_FLOOR=$("$WORK/floor-rewrite" "$PRISTINE" "$FLOORTREE" "$WORK/files" "$RUNS")
B_FLOOR_NOSYNC=$("$WORK/floor-rewrite" "$PRISTINE" "$FLOORTREE" "$WORK/files" "$RUNS" nosync)
B_PY=- B_PY_RSS=-
if [[ -n $PYREF ]]; then
	# The journal variant's restore reads index.json: build it from the
	# journal once (untimed), as the non-journal variant would have left it.
	rm -rf "$PYTREE/.osfoundry"
	"$BIN/py-capture" "$PYTREE" 1 >/dev/null
	python3 - "$PYTREE/.osfoundry/checkpoints" <<'EOF'
import json, sys, time
d = sys.argv[1]
turns = {}
for line in open(d + "/journal.jsonl"):
    e = json.loads(line)
    t = e.pop("turn")
    turns.setdefault(t, {"turn": t, "label": "bench", "at": time.time_ns(), "files": []})["files"].append(e)
json.dump(list(turns.values()), open(d + "/index.json", "w"))
EOF
	cp "$PYTREE/.osfoundry/checkpoints/index.json" "$WORK/py-index.json"
	PYPREP="cp '$WORK/py-index.json' '$PYTREE/.osfoundry/checkpoints/index.json' && '$BIN/edit-all' '$PYTREE'"
	B_PY=$(bench "$PYPREP" "JOURNAL=1 python3 '$PYREF' '$PYTREE' restore 1")
	bash -c "$PYPREP"
	B_PY_RSS=$(peak env JOURNAL=1 python3 "$PYREF" "$PYTREE" restore 1)
fi

# --- c) a hooked turn on the whole tree --------------------------------------

# (c) runs on four copies of the first 4,686 files: 18,744 files.
head -n 4686 "$WORK/all" >"$WORK/c-files"
FULL=$WORK/full
for i in 1 2 3 4; do
	mkdir -p "$FULL/copy$i"
	tar -C "$SRC" -cf - -T "$WORK/c-files" | tar -C "$FULL/copy$i" -xf -
	sed "s|^|copy$i/|" "$WORK/c-files"
done >"$WORK/c-all"
NALL=$(wc -l <"$WORK/c-all" | tr -d ' ')
say "c) a hooked turn (9 hook processes) on $NALL files…"
(cd "$FULL" && "${GIT[@]}" init -q && git add -A && git commit -q -m full)
awk -v n="$NALL" 'NR == int(n*0.1) || NR == int(n*0.35) || NR == int(n*0.6) || NR == int(n*0.85)' "$WORK/c-all" >"$WORK/four"
echo 0 >"$WORK/turn-counter"
cat >"$BIN/hook-turn" <<EOF
#!/usr/bin/env bash
# UserPromptSubmit, then PreToolUse / write / PostToolUse for 4 files, as
# Claude Code calls the hook: 9 processes, each with its event on stdin,
# fed from a here-string so that the script itself forks nothing else.
# PROG (default ckpt-hook, as ckpt install writes it) runs as PROG hook claude.
P=\${1:-$HOOK}
cd "$FULL" || exit 1
read -r n <"$WORK/turn-counter"; n=\$((n + 1)); echo "\$n" >"$WORK/turn-counter"
export CLAUDE_PROJECT_DIR="$FULL"
ev() { printf -v j '{"session_id":"bench","transcript_path":"","cwd":"%s","hook_event_name":"%s","prompt_id":"p%s","prompt":"turn %s","tool_name":"Write","tool_input":{"file_path":"%s","content":"x"},"tool_use_id":"t%s"}' "$FULL" "\$1" "\$n" "\$n" "\$2" "\$n"; }
ev UserPromptSubmit ""; "\$P" hook claude <<<"\$j"
mapfile -t four <"$WORK/four"
for f in "\${four[@]}"; do
	ev PreToolUse "$FULL/\$f"; "\$P" hook claude <<<"\$j"
	printf '// %s\n' "\$n" >>"$FULL/\$f"
	ev PostToolUse "$FULL/\$f"; "\$P" hook claude <<<"\$j"
done
EOF
cat >"$BIN/git-turn" <<EOF
#!/usr/bin/env bash
cd "$FULL" || exit 1
mapfile -t four <"$WORK/four"
for f in "\${four[@]}"; do printf '// %s\n' "\$RANDOM" >>"\$f"; done
git add -A && git stash create >/dev/null
EOF
cat >"$BIN/nine" <<'EOF'
#!/usr/bin/env bash
for i in 1 2 3 4 5 6 7 8 9; do "$@" >/dev/null; done
EOF
chmod +x "$BIN"/*
"$BIN/hook-turn" # the first turn after install pays for the first sweep
# A turn takes tens of milliseconds: (c) takes at least 21 rounds, its
# commands taking turns in each (interleave), so that a busy spell on a
# shared machine slows ckpt and git alike and one slow run moves no median.
RUNS_C=$((RUNS < 21 ? 21 : RUNS))
C=()
mapfile -t C < <("$WORK/interleave-bin" "$RUNS_C" \
	"$BIN/hook-turn" ::: "$BIN/hook-turn" "$CKPT" ::: "$BIN/nine" "$HOOK" -h ::: \
	"$BIN/hook-turn" "$(type -P true)" ::: "$BIN/git-turn" ::: "$BIN/nine" "$CKPT" --version ::: \
	"$BIN/nine" "$WORK/ckpt-libc" --version ::: "$BIN/nine" "$WORK/hello-go")
((${#C[@]} == 8)) || { say "c) the interleaved runs failed"; exit 1; }
C_CKPT=${C[0]} C_FULLBIN=${C[1]} C_SMALL=${C[2]} C_HARNESS=${C[3]}
C_GIT=${C[4]} C_VER=${C[5]} C_VER_LIBC=${C[6]} C_HELLO=${C[7]}
C_FSYNC=-
if command -v strace >/dev/null; then
	strace -f -c -e trace=fsync,fdatasync,syncfs,sync -o "$WORK/strace" "$BIN/hook-turn" >/dev/null 2>&1 &&
		C_FSYNC=$(awk '$NF ~ /^(fsync|fdatasync|syncfs|sync)$/ { n += $4 } END { printf "%d", n }' "$WORK/strace") || true
fi

# --- e) a big seed store -----------------------------------------------------

say "e) log --json on a seed index of 10,000 turns / 100,000 entries…"
SEED=$WORK/seed
mkdir -p "$SEED/.osfoundry/checkpoints"
python3 - "$SEED" <<'EOF'
import json, os, sys
root = sys.argv[1]
for d in range(20):
    os.makedirs(f"{root}/src/d{d}", exist_ok=True)
turns = []
for t in range(10000):
    files = []
    for k in range(10):
        i = (t * 10 + k) % 2000
        files.append({"path": f"{root}/src/d{i % 20}/f{i}.txt", "pre": {"kind": "content", "sha256": "%064x" % (i + 1), "bytes": 100}})
    turns.append({"turn": t + 1, "label": f"turn {t + 1}", "at": 1764412345123456789 + t * 10**9, "files": files})
json.dump(turns, open(f"{root}/.osfoundry/checkpoints/index.json", "w"))
EOF
E_LOG=$(bench "true" "cd '$SEED' && '$CKPT' log --json")
E_LOG_RSS=$(peak bash -c "cd '$SEED' && exec '$CKPT' log --json")
# The UI's first frame on the same index: opening the store, the first
# size and the first View, which must show the newest turn (ui's Go
# benchmark, which makes the index as above).
E_UI=$(cd "$REPO" && go test ./ui -run '^$' -bench '^BenchmarkFirstFrameSeed$' -benchtime "${RUNS}x" 2>/dev/null |
	awk '/^BenchmarkFirstFrameSeed/ { printf "%.1f\n", $3/1e6 }')

# --- f) a big file ------------------------------------------------------------

F_CAP=- F_RW=- F_UNDO=- F_CAP_RSS=- F_RW_RSS=- F_UNDO_RSS=-
if ((BIGFILE > 0)); then
	say "f) capture, rewind and undo of a $BIGFILE MiB file…"
	BIG=$WORK/bigfile
	mkdir -p "$BIG"
	head -c $((BIGFILE << 20)) /dev/urandom >"$BIG/big.bin"
	cd "$BIG"
	t0=$(now_ns)
	F_CAP_RSS=$(peak "$CKPT" capture --turn 1 --max-blob "$((BIGFILE + 1))MiB" big.bin)
	F_CAP=$((($(now_ns) - t0) / 1000000))
	printf 'agent\n' >"$BIG/big.bin"
	"$CKPT" seal --turn 1 big.bin >/dev/null
	t0=$(now_ns)
	F_RW_RSS=$(peak "$CKPT" rewind 1 --yes)
	F_RW=$((($(now_ns) - t0) / 1000000))
	t0=$(now_ns)
	F_UNDO_RSS=$(peak "$CKPT" undo --yes)
	F_UNDO=$((($(now_ns) - t0) / 1000000))
	cd "$WORK"
	rm -rf "$BIG"
fi

# --- the table --------------------------------------------------------------------

PYCOL() { [[ -n $PYREF ]] && echo "$1" || echo "not run"; }
row "figure" "ckpt ms" "peer ms" "ratio"
row "----------------------------------------------------" "----------" "----------" "------------"
sep "a) bulk capture of $NFILES files ($(mib "$RAW"))"
row "   ckpt capture vs Python store (JOURNAL=1)" "$A_CKPT" "$(PYCOL "$A_PY")" "$(ratio "$A_PY" "$A_CKPT")"
row "   ckpt capture vs git add -A" "$A_CKPT" "$A_GIT" "$(ratio "$A_GIT" "$A_CKPT")"
row "   floor: git hash-object --stdin-paths (ckpt/floor)" "$A_CKPT" "$A_FLOOR" "$(ratio "$A_CKPT" "$A_FLOOR")"
sep "b) rewind of $NFILES files, every one changed"
row "   ckpt rewind vs Python store restore" "$B_CKPT" "$(PYCOL "$B_PY")" "$(ratio "$B_PY" "$B_CKPT")"
row "   ckpt rewind vs git checkout -- ." "$B_CKPT" "$B_GIT" "$(ratio "$B_GIT" "$B_CKPT")"
row "   the same right after the edits (not synced)" "$B_CKPT_DIRTY" "$B_GIT_DIRTY" "$(ratio "$B_GIT_DIRTY" "$B_CKPT_DIRTY")"
row "   floor: rewrite in place from memory (ckpt/floor)" "$B_CKPT" "$B_FLOOR" "$(ratio "$B_CKPT" "$B_FLOOR")"
row "   the same floor without its syncfs (git/floor)" "$B_GIT" "$B_FLOOR_NOSYNC" "$(ratio "$B_GIT" "$B_FLOOR_NOSYNC")"
sep "c) hooked turn on $NALL files: prompt + 4 writes, 9 processes ($RUNS_C rounds, interleaved)"
row "   ckpt-hook ×9 vs git add -A && git stash create" "$C_CKPT" "$C_GIT" "$(ratio "$C_GIT" "$C_CKPT")"
row "   the same as ckpt hook (the whole binary) vs git" "$C_FULLBIN" "$C_GIT" "$(ratio "$C_GIT" "$C_FULLBIN")"
row "   floor: the turn script, true as hook (ckpt/floor)" "$C_CKPT" "$C_HARNESS" "$(ratio "$C_CKPT" "$C_HARNESS")"
row "   floor: ckpt-hook -h ×9 (ckpt/floor)" "$C_CKPT" "$C_SMALL" "$(ratio "$C_CKPT" "$C_SMALL")"
row "   floor: ckpt --version ×9 (ckpt/floor)" "$C_CKPT" "$C_VER" "$(ratio "$C_CKPT" "$C_VER")"
row "   floor: Go hello-world ×9 (ckpt/floor)" "$C_CKPT" "$C_HELLO" "$(ratio "$C_CKPT" "$C_HELLO")"
row "   ckpt --version ×9: static vs linked against libc" "$C_VER" "$C_VER_LIBC" "$(ratio "$C_VER_LIBC" "$C_VER")"
row "   fsync/fdatasync/syncfs calls in the 9 hook calls" "$C_FSYNC" "-" "-"
sep "d) store after (a): size / raw bytes"
row "   ckpt, bytes" "$(ratio "$STORE_A" "$RAW")" "git $(ratio "$GIT_OBJ" "$RAW")" "-"
row "   ckpt, disk blocks (du)" "$(ratio $((STORE_A_DU * 1024)) "$RAW")" "git $(ratio $((GIT_OBJ_DU * 1024)) "$RAW")" "-"
sep "e) seed index.json of 10,000 turns / 100,000 entries"
row "   ckpt log --json (ms)" "$E_LOG" "-" "-"
row "   UI: open the store to the first frame (ms, mean)" "${E_UI:--}" "-" "-"
sep "f) peak memory (RSS)"
row "   (a) bulk capture: ckpt / Python / git add -A" "$A_CKPT_RSS" "$(PYCOL "$A_PY_RSS")" "git $A_GIT_RSS"
row "   (b) bulk rewind: ckpt / Python / git checkout" "$B_CKPT_RSS" "$(PYCOL "$B_PY_RSS")" "git $B_GIT_RSS"
row "   (e) log --json on the seed index" "$E_LOG_RSS" "-" "-"
if ((BIGFILE > 0)); then
	row "   $BIGFILE MiB file: capture (ms, RSS)" "$F_CAP" "$F_CAP_RSS" "-"
	row "   $BIGFILE MiB file: rewind (ms, RSS)" "$F_RW" "$F_RW_RSS" "-"
	row "   $BIGFILE MiB file: undo (ms, RSS)" "$F_UNDO" "$F_UNDO_RSS" "-"
fi

echo
echo "ckpt beside its peers, one run: $RUNS runs per figure (median), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "machine: $(uname -sm), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ //' || sysctl -n machdep.cpu.brand_string), $(nproc 2>/dev/null || sysctl -n hw.ncpu) cores, $(df -T "$WORK" 2>/dev/null | awk 'NR==2 { print $2 }') at $WORK"
echo "tools: $(go version | cut -d' ' -f3), $(git --version), $(python3 --version 2>&1), timing by $([[ -n $HYPERFINE ]] && echo "hyperfine $($HYPERFINE --version | cut -d' ' -f2)" || echo "a date +%s%N loop")"
echo "load average before the table: $(uptime | sed 's/.*load average[s]*: //')"
echo
printf '%s\n' "${ROWS[@]}"
echo
echo "ckpt runs with its durability on (a barrier before records name blobs, fsync of records);"
echo "git and the Python store run with their defaults (no fsync). Ratios are peer/ckpt (above 1: ckpt is"
echo "faster) beside a peer, and ckpt/floor (1 is the floor) beside a floor."

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
"$HOOK" hook claude <"$S/pre.json" && printf '// %s\n' \$RANDOM >>"$f1" && "$HOOK" hook claude <"$S/post.json"
EOS
	cat >"$S/git-step" <<EOS
#!/usr/bin/env bash
cd "$T" && git add -A && git write-tree >/dev/null && printf '// %s\n' \$RANDOM >>"$f1" && git add -A && git write-tree >/dev/null
EOS
	cat >"$S/first-step" <<EOS
#!/usr/bin/env bash
"$HOOK" hook claude <"$S/prompt.json" && exec "$S/step"
EOS
	chmod +x "$S/step" "$S/git-step" "$S/first-step"
	# Files written in the last two seconds are re-read by every sweep
	# (racily clean): let the copy age past that, as a real tree has.
	sleep 3
	local cold cold_git warm warm_git first rss_cold rss_warm rss_git big
	cold=$(bench "rm -rf '$T/.osfoundry'" "cd '$T' && '$HOOK' hook claude <'$S/pre.json'")
	cold_git=$(bench "rm -rf '$T/.git'; cd '$T' && ${GIT[*]} init -q" "cd '$T' && git add -A")
	rm -rf "$T/.osfoundry"
	rss_cold=$( (cd "$T" && /usr/bin/time -f %M "$HOOK" hook claude <"$S/pre.json") 2>&1 >/dev/null | tail -1)
	"$S/step" && "$S/git-step"
	warm=$(bench "true" "'$S/step'")
	warm_git=$(bench "true" "'$S/git-step'")
	first=$(bench "true" "'$S/first-step'")
	local warm_cpu warm_git_cpu first_cpu
	warm_cpu=$(cpu_ms "'$S/step'")
	warm_git_cpu=$(cpu_ms "'$S/git-step'")
	first_cpu=$(cpu_ms "'$S/first-step'")
	rss_warm=$( (cd "$T" && /usr/bin/time -f %M "$HOOK" hook claude <"$S/pre.json") 2>&1 >/dev/null | tail -1)
	rss_git=$( (cd "$T" && /usr/bin/time -f %M git add -A) 2>&1 >/dev/null | tail -1)
	(cd "$T" && find . -path ./.osfoundry -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||' >"$S/all")
	for i in 1 2 3; do (cd "$T" && "$CKPT" capture --turn "fill$i" --stdin-paths <"$S/all" >/dev/null); done
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
bench_big

bench_long
