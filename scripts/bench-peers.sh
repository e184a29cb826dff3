#!/usr/bin/env bash
# bench-peers.sh — ckpt beside its peers on a real tree: a copy of
# $(go env GOROOT)/src (regular files under 8 MiB, sorted by path).
#
#   a) one `ckpt capture` of every file
#   b) a 4-file turn as 4 separate `ckpt capture` processes (as a hook calls
#      it) vs `git add -A && git stash create` on the same tree, on the full
#      tree and on a small one (ckpt stays flat, git grows with the tree)
#   c) `ckpt rewind` of every file after a turn that modified all of them
#   d) the store's size vs the raw bytes (sum of file sizes) and in disk
#      blocks (du), vs git's loose objects for the same tree
#   e) a capture into a store of 60,000 entries vs a store of one entry,
#      and `ckpt log --json` on the big store
#
# Every ckpt figure is with its real durability on (the default). Needs bash,
# go and git; uses hyperfine when installed, else a timing loop.
# Usage: scripts/bench-peers.sh [RUNS [MAXFILES]]
#   RUNS      timed runs per figure (default 5; the median is shown)
#   MAXFILES  take only the first MAXFILES files of the sorted list
#             (e.g. 4686, the tree the Python store's quoted figures were measured on)
set -euo pipefail

RUNS=${1:-5}
MAXFILES=${2:-0}
REPO=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ckpt-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
GIT=(git -c user.name=bench -c user.email=bench@example.com -c init.defaultBranch=main)

say() { printf '%s\n' "$*" >&2; }

# --- clocks -----------------------------------------------------------------

if [[ $(date +%N) =~ ^[0-9]+$ ]]; then
	now_ns() { date +%s%N; }
else # BSD date has no %N
	now_ns() { perl -MTime::HiRes=time -e 'printf "%.0f\n", time*1e9'; }
fi

HYPERFINE=$(command -v hyperfine || true)

# bench NAME PREPARE CMD: runs CMD $RUNS times, PREPARE (untimed) before
# each run, and prints the median in milliseconds.
bench() {
	local name=$1 prepare=$2 cmd=$3
	if [[ -n $HYPERFINE ]]; then
		local csv=$WORK/hf-$RANDOM.csv
		"$HYPERFINE" --shell=bash --runs "$RUNS" --prepare "$prepare" --export-csv "$csv" "$cmd" >/dev/null
		# command,mean,stddev,median,user,system,min,max (seconds)
		awk -F, 'NR==2 { printf "%.1f\n", $4*1000 }' "$csv"
		return
	fi
	local times=() i t0 t1
	for ((i = 0; i < RUNS; i++)); do
		bash -c "$prepare" >/dev/null
		t0=$(now_ns)
		bash -c "$cmd" >/dev/null
		t1=$(now_ns)
		times+=($(((t1 - t0) / 1000)))
	done
	printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { m = (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2; printf "%.1f\n", m/1000 }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a/b; else print "-" }'; }

# sumbytes DIR: the sum of the sizes of the regular files under DIR.
sumbytes() { find "$1" -type f -exec cat {} + 2>/dev/null | wc -c | tr -d ' '; }
# dukb DIR: disk blocks in KiB.
dukb() { du -sk "$1" | cut -f1; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b/1048576 }'; }

# --- the tree ---------------------------------------------------------------

say "building ckpt…"
(cd "$REPO" && go build -o "$WORK/ckpt" .)
CKPT=$WORK/ckpt
SRC=$(go env GOROOT)/src
TREE=$WORK/tree
mkdir -p "$TREE"
(cd "$SRC" && find . -type f -size -8388608c | sed 's|^\./||' | LC_ALL=C sort) >"$WORK/files"
if ((MAXFILES > 0)); then
	head -n "$MAXFILES" "$WORK/files" >"$WORK/files.head" && mv "$WORK/files.head" "$WORK/files"
fi
tar -C "$SRC" -cf - -T "$WORK/files" | tar -C "$TREE" -xf -
NFILES=$(wc -l <"$WORK/files" | tr -d ' ')
RAW=$(sumbytes "$TREE")
say "tree: $NFILES files, $RAW bytes ($(mib "$RAW")) from $SRC"

# Scripts the timings run (so hyperfine and the loop run the same thing).
BIN=$WORK/bin
mkdir -p "$BIN"
cat >"$BIN/capture-all" <<EOF
#!/usr/bin/env bash
# one capture of every file, in turn \$1
cd "\$CKPT_ROOT" && mapfile -t f <"$WORK/files" && exec "$CKPT" capture --turn "\$1" "\${f[@]}"
EOF
cat >"$BIN/seal-all" <<EOF
#!/usr/bin/env bash
cd "\$CKPT_ROOT" && mapfile -t f <"$WORK/files" && exec "$CKPT" seal --turn "\$1" "\${f[@]}"
EOF
cat >"$BIN/edit-all" <<EOF
#!/usr/bin/env bash
# the agent's turn: every file gets a line more
cd "\$1" && while IFS= read -r f; do printf '\n// edited by the agent\n' >>"\$f"; done <"$WORK/files"
EOF
cat >"$BIN/edit4" <<EOF
#!/usr/bin/env bash
# four files change (between runs of the 4-file turn)
cd "\$1" && for f in \$(cat "$WORK/four"); do printf '// %s\n' "\$RANDOM" >>"\$f"; done
EOF
cat >"$BIN/ckpt-4" <<EOF
#!/usr/bin/env bash
# a 4-file turn as a hook makes it: 4 capture processes, one per file,
# into a new turn each run
cd "\$CKPT_ROOT" || exit 1
n=\$(( \$(cat "$WORK/turn-counter") + 1 )); echo "\$n" >"$WORK/turn-counter"
for f in \$(cat "$WORK/four"); do "$CKPT" capture --turn "h\$n" "\$f" || exit 1; done
EOF
cat >"$BIN/ckpt-1proc" <<EOF
#!/usr/bin/env bash
# one capture process of the four files into a new turn
cd "\$CKPT_ROOT" || exit 1
n=\$(( \$(cat "$WORK/turn-counter") + 1 )); echo "\$n" >"$WORK/turn-counter"
exec "$CKPT" capture --turn "p\$n" \$(cat "$WORK/four")
EOF
cat >"$BIN/git-4" <<EOF
#!/usr/bin/env bash
cd "\$1" && git add -A && git -c user.name=bench -c user.email=bench@example.com stash create >/dev/null
EOF
chmod +x "$BIN"/*
echo 0 >"$WORK/turn-counter"
# four files spread over the tree
awk -v n="$NFILES" 'NR == int(n*0.1) || NR == int(n*0.35) || NR == int(n*0.6) || NR == int(n*0.85)' "$WORK/files" >"$WORK/four"

declare -a ROWS
row() { ROWS+=("$(printf '%-58s %12s %14s %10s' "$@")"); }

# --- a) one capture of every file --------------------------------------------

say "a) capture of all $NFILES files…"
export CKPT_ROOT=$TREE
A_MS=$(bench a "rm -rf '$TREE/.osfoundry'" "'$BIN/capture-all' 1")
"$BIN/capture-all" 1 >/dev/null # leave the store of one full-tree turn for (d)
STORE_A=$(sumbytes "$TREE/.osfoundry")
STORE_A_DU=$(dukb "$TREE/.osfoundry")

# --- d) git's loose objects for the same tree --------------------------------

say "d) git add of the tree…"
GITTREE=$WORK/gittree
cp -R "$TREE" "$GITTREE"
rm -rf "$GITTREE/.osfoundry"
(cd "$GITTREE" && "${GIT[@]}" init -q && git add -A)
GIT_OBJ=$(sumbytes "$GITTREE/.git/objects")
GIT_OBJ_DU=$(dukb "$GITTREE/.git/objects")
(cd "$GITTREE" && "${GIT[@]}" commit -q -m tree)

# --- b) a 4-file turn --------------------------------------------------------

say "b) 4-file turn: 4 ckpt processes vs git add -A && git stash create…"
B_CKPT=$(bench b "'$BIN/edit4' '$TREE'" "'$BIN/ckpt-4'")
B_CKPT1=$(bench b1 "'$BIN/edit4' '$TREE'" "'$BIN/ckpt-1proc'")
B_GIT=$(bench b "'$BIN/edit4' '$GITTREE'" "'$BIN/git-4' '$GITTREE'")

# the same on a small tree (the first 400 files), to see who grows
SMALL=$WORK/small
mkdir -p "$SMALL"
head -n 400 "$WORK/files" >"$WORK/files-small"
tar -C "$SRC" -cf - -T "$WORK/files-small" | tar -C "$SMALL" -xf -
awk 'NR % 100 == 50' "$WORK/files-small" >"$WORK/four-small"
sed -i.bak "s|$WORK/four\"|$WORK/four-small\"|" "$BIN/edit4" "$BIN/ckpt-4"
(cd "$SMALL" && "${GIT[@]}" init -q && git add -A && "${GIT[@]}" commit -q -m small)
export CKPT_ROOT=$SMALL
"$CKPT" capture --turn 0 "$SMALL/$(head -n1 "$WORK/files-small")" >/dev/null
B_CKPT_S=$(bench bs "'$BIN/edit4' '$SMALL'" "'$BIN/ckpt-4'")
B_GIT_S=$(bench bs "'$BIN/edit4' '$SMALL'" "'$BIN/git-4' '$SMALL'")
mv "$BIN/edit4.bak" "$BIN/edit4"
mv "$BIN/ckpt-4.bak" "$BIN/ckpt-4"

# --- c) rewind of every file -------------------------------------------------

say "c) rewind of all $NFILES files after a turn that modified all of them…"
RW=$WORK/rewind
cp -R "$TREE" "$RW"
rm -rf "$RW/.osfoundry"
export CKPT_ROOT=$RW
"$BIN/capture-all" 1 >/dev/null
"$BIN/edit-all" "$RW"
"$BIN/seal-all" 1 >/dev/null
STORE_C=$(sumbytes "$RW/.osfoundry")
STORE_C_DU=$(dukb "$RW/.osfoundry")
# Each timed rewind starts from the edited folder: the prepare step undoes
# the previous rewind (the first has nothing to undo).
C_MS=$(bench c "'$CKPT' undo --yes >/dev/null 2>&1 || true" "'$CKPT' rewind 1 --yes")

# --- e) a store of 60,000 entries --------------------------------------------

say "e) filling a store with 60,000 entries…"
BIG=$WORK/big
cp -R "$TREE" "$BIG"
rm -rf "$BIG/.osfoundry"
export CKPT_ROOT=$BIG
TURNS=$(((60000 + NFILES - 1) / NFILES))
for ((i = 1; i <= TURNS; i++)); do "$BIN/capture-all" "fill$i" >/dev/null; done
ENTRIES=$((TURNS * NFILES))
E_BIG=$(bench e "'$BIN/edit4' '$BIG'" "'$BIN/ckpt-1proc'")
E_LOG=$(bench e "true" "'$CKPT' log --json >/dev/null")
ONE=$WORK/one
cp -R "$TREE" "$ONE"
rm -rf "$ONE/.osfoundry"
export CKPT_ROOT=$ONE
(cd "$ONE" && "$CKPT" capture --turn 0 "$(head -n1 "$WORK/files")" >/dev/null)
E_ONE=$(bench e "'$BIN/edit4' '$ONE'" "'$BIN/ckpt-1proc'")

# --- the table -------------------------------------------------------------------

PY_CAPTURE_MS=7000 # the seed design's Python store on these machines, as quoted
PY_RESTORE_MS=5000

row "figure" "ckpt" "peer" "peer/ckpt"
row "----------------------------------------------------------" "------------" "--------------" "----------"
row "a) capture of all $NFILES files (ms)" "$A_MS" "py: n/a" "-"
if ((NFILES == 4686)); then
	row "   vs the Python store's quoted ~7 s (not run here)" "$A_MS" "~$PY_CAPTURE_MS" "$(ratio $PY_CAPTURE_MS "$A_MS")"
fi
row "b) 4-file turn, 4 processes, full tree (ms)" "$B_CKPT" "git $B_GIT" "$(ratio "$B_GIT" "$B_CKPT")"
row "   same 4 files in 1 capture process (ms)" "$B_CKPT1" "git $B_GIT" "$(ratio "$B_GIT" "$B_CKPT1")"
row "   4-file turn, 4 processes, 400-file tree (ms)" "$B_CKPT_S" "git $B_GIT_S" "$(ratio "$B_GIT_S" "$B_CKPT_S")"
row "   growth full/small tree" "$(ratio "$B_CKPT" "$B_CKPT_S")" "$(ratio "$B_GIT" "$B_GIT_S")" "-"
row "c) rewind of all $NFILES files (ms)" "$C_MS" "py: n/a" "-"
if ((NFILES == 4686)); then
	row "   vs the Python store's quoted ~5 s restore (not run here)" "$C_MS" "~$PY_RESTORE_MS" "$(ratio $PY_RESTORE_MS "$C_MS")"
fi
row "d) store after the full-tree capture / raw bytes" "$(ratio "$STORE_A" "$RAW")" "git $(ratio "$GIT_OBJ" "$RAW")" "-"
row "   same in disk blocks (du) / raw bytes" "$(ratio $((STORE_A_DU * 1024)) "$RAW")" "git $(ratio $((GIT_OBJ_DU * 1024)) "$RAW")" "-"
row "   store after capture+edit+seal of all / raw bytes" "$(ratio "$STORE_C" "$RAW")" "-" "-"
row "   same in disk blocks (du) / raw bytes" "$(ratio $((STORE_C_DU * 1024)) "$RAW")" "-" "-"
row "e) 4-file capture, store of 1 entry (ms)" "$E_ONE" "-" "-"
row "   4-file capture, store of $ENTRIES entries (ms)" "$E_BIG" "-" "$(ratio "$E_BIG" "$E_ONE") of 1-entry"
row "   log --json on the $ENTRIES-entry store (ms)" "$E_LOG" "-" "-"

echo
echo "ckpt beside its peers: $NFILES files, $RAW bytes ($(mib "$RAW")) of $SRC, $RUNS runs each (median)"
echo "timing: $([[ -n $HYPERFINE ]] && echo "hyperfine $($HYPERFINE --version | cut -d' ' -f2)" || echo "date +%s%N loop"); $(nproc 2>/dev/null || sysctl -n hw.ncpu) cores; $(go version | cut -d' ' -f3); $(git --version)"
printf '%s\n' "${ROWS[@]}"
echo
echo "sizes: raw $(mib "$RAW"); store after (a) $(mib "$STORE_A") apparent, $((STORE_A_DU / 1024)) MiB in blocks;"
echo "       store after (c)'s turn $(mib "$STORE_C") apparent, $((STORE_C_DU / 1024)) MiB in blocks; git loose objects $(mib "$GIT_OBJ"), $((GIT_OBJ_DU / 1024)) MiB in blocks"
echo "Python store peer: not available on this machine (it is run outside the repo). Its figures quoted"
echo "for these machines (~7 s capture, ~5 s restore) are for the first 4,686 files: with MAXFILES=4686"
echo "the table sets them beside ckpt's, marked as not run here."
echo "load average while this ran: $(uptime | sed 's/.*load average[s]*: //')"
echo "git runs with its default durability (no fsync of objects); ckpt with its own (on)."

# --- shell sweeps ------------------------------------------------------------
# bench_shell: the sweep around a shell command, through the hook binary as
# Claude Code runs it, beside a whole-tree git snapshot (what shadow-git
# checkpointing pays per step), on four copies of the first 4,686 files of
# $SRC (18,744 files):
#   warm:  a shell step's two hook calls (PreToolUse + PostToolUse, one file
#          changed between) vs two `git add -A && git write-tree`
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
	cat >"$S/step" <<EOS
#!/usr/bin/env bash
"$CKPT" hook claude <"$S/pre.json" && printf '// %s\n' \$RANDOM >>"$f1" && "$CKPT" hook claude <"$S/post.json"
EOS
	cat >"$S/git-step" <<EOS
#!/usr/bin/env bash
cd "$T" && git add -A && git write-tree >/dev/null && printf '// %s\n' \$RANDOM >>"$f1" && git add -A && git write-tree >/dev/null
EOS
	chmod +x "$S/step" "$S/git-step"
	# Files written in the last two seconds are re-read by every sweep
	# (racily clean): let the copy age past that, as a real tree has.
	sleep 3
	local cold cold_git warm warm_git rss_cold rss_warm rss_git big
	cold=$(bench s "rm -rf '$T/.osfoundry'" "cd '$T' && '$CKPT' hook claude <'$S/pre.json'")
	cold_git=$(bench s "rm -rf '$T/.git'; cd '$T' && ${GIT[*]} init -q" "cd '$T' && git add -A")
	rm -rf "$T/.osfoundry"
	rss_cold=$( (cd "$T" && /usr/bin/time -f %M "$CKPT" hook claude <"$S/pre.json") 2>&1 >/dev/null | tail -1)
	"$S/step" && "$S/git-step"
	warm=$(bench s "true" "'$S/step'")
	warm_git=$(bench s "true" "'$S/git-step'")
	rss_warm=$( (cd "$T" && /usr/bin/time -f %M "$CKPT" hook claude <"$S/pre.json") 2>&1 >/dev/null | tail -1)
	rss_git=$( (cd "$T" && /usr/bin/time -f %M git add -A) 2>&1 >/dev/null | tail -1)
	(cd "$T" && find . -path ./.osfoundry -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||' >"$S/all")
	for i in 1 2 3; do (cd "$T" && xargs -a "$S/all" -d '\n' "$CKPT" capture --turn "fill$i" >/dev/null); done
	big=$(bench s "true" "'$S/step'")
	echo
	echo "shell sweeps: $n files (4 copies of the first 4,686 of $SRC), $RUNS runs each (median)"
	printf '%-58s %12s %14s %10s\n' "figure" "ckpt" "git" "git/ckpt"
	printf '%-58s %12s %14s %10s\n' "warm: shell step, 2 hook calls vs 2 add -A+write-tree (ms)" "$warm" "$warm_git" "$(ratio "$warm_git" "$warm")"
	printf '%-58s %12s %14s %10s\n' "cold: first hook call vs add -A into a fresh repo (ms)" "$cold" "$cold_git" "$(ratio "$cold_git" "$cold")"
	printf '%-58s %12s %14s %10s\n' "peak RSS: warm hook call / git add -A (KiB)" "$rss_warm" "$rss_git" "-"
	printf '%-58s %12s %14s %10s\n' "peak RSS: cold hook call (KiB)" "$rss_cold" "-" "-"
	printf '%-58s %12s %14s %10s\n' "warm step with ~$((3 * n)) more store entries (ms)" "$big" "-" "$(ratio "$big" "$warm") of empty"
}
bench_shell
