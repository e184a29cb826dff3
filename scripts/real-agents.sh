#!/usr/bin/env bash
# Runs the real coding agents headless against mock model servers on
# 127.0.0.1, with ckpt's hooks installed, and checks ckpt's log, show,
# rewind and undo against what they did (go doc ./harness).
#
# The pinned agents come from npm into a cache ($CKPT_AGENTS_CACHE, default
# ~/.cache/ckpt-agents). An agent that cannot be installed (no npm, the
# registry out of reach) is skipped, loudly, never passed.
# CKPT_HARNESS_RECORD=1 prints the raw hook payloads and rewrites
# testdata/hooks/AGENT/recorded.jsonl from them.
set -euo pipefail
cd "$(dirname "$0")/.."

# name package version executable — keep in step with agent.TestedVersions.
pins=(
	"claude @anthropic-ai/claude-code 2.1.328 claude"
	"codex @openai/codex 0.171.0 codex"
	"gemini @google/gemini-cli 0.61.0 gemini"
	"opencode opencode-ai 1.18.33 opencode"
	"pi @mariozechner/pi-coding-agent 0.73.1 pi"
	"copilot @github/copilot 1.0.102 copilot"
	"cline cline 3.0.65 cline"
	"qwen @qwen-code/qwen-code 0.24.4 qwen"
)

cache=${CKPT_AGENTS_CACHE:-$HOME/.cache/ckpt-agents}
export CKPT_AGENTS_CACHE=$cache
mkdir -p "$cache"
skipped=()
envs=()
registry=unknown # probed once, when an agent needs installing
# install NAME PKG VER DIR: into the cache, in the background; the
# outcome lands in DIR.status.
install() {
	local name=$1 pkg=$2 ver=$3 dir=$4 start
	start=$(date +%s)
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	if ! timeout 300 npm install --prefix "$dir.tmp" --no-audit --no-fund --loglevel=error "$pkg@$ver" >"$dir.log" 2>&1; then
		echo "npm install $pkg@$ver failed: $(tail -n 3 "$dir.log" | tr '\n' ' ')" >"$dir.status"
		rm -rf "$dir.tmp"
		return
	fi
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	echo "installed $pkg@$ver into the cache in $(($(date +%s) - start)) s"
	rm -f "$dir.status"
}
pending=()
for pin in "${pins[@]}"; do
	read -r name pkg ver exe <<<"$pin"
	dir="$cache/$name-$ver"
	if [ -x "$dir/node_modules/.bin/$exe" ]; then
		continue
	fi
	if ! command -v npm >/dev/null; then
		skipped+=("$name $ver (npm is not installed)")
		continue
	fi
	if [ "$registry" = unknown ]; then
		registry=up
		if ! timeout 60 npm view --fetch-retries=1 "$pkg@$ver" version >/dev/null 2>"$cache/registry.log"; then
			registry=down
		fi
	fi
	if [ "$registry" = down ]; then
		skipped+=("$name $ver (the npm registry cannot be reached: $(grep -m1 "npm error" "$cache/registry.log"))")
		continue
	fi
	# The agents install side by side: a cold cache costs the slowest one.
	install "$name" "$pkg" "$ver" "$dir" &
	pending+=("$dir")
done
wait
for pin in "${pins[@]}"; do
	read -r name pkg ver exe <<<"$pin"
	dir="$cache/$name-$ver"
	bin="$dir/node_modules/.bin/$exe"
	if [ -f "$dir.status" ]; then
		skipped+=("$name $ver ($(cat "$dir.status"))")
		rm -f "$dir.status"
	fi
	if [ -x "$bin" ]; then
		envs+=("CKPT_AGENT_$(echo "$name" | tr a-z A-Z)=$bin")
	elif ! printf '%s\n' "${skipped[@]}" | grep -q "^$name "; then
		skipped+=("$name $ver (not installed)")
	fi
done

if [ ${#skipped[@]} -gt 0 ]; then
	echo "################################################################"
	echo "#  REAL-AGENT HARNESS: SKIPPED ${#skipped[@]} AGENT(S) — NOT TESTED:"
	for s in "${skipped[@]}"; do echo "#    $s"; done
	echo "################################################################"
fi
if [ ${#envs[@]} -eq 0 ]; then
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/ckpt" . # as README installs it,
CGO_ENABLED=0 go build -o "$tmp/ckpt-hook" ./cmd/ckpt-hook # so the hooks run ckpt-hook
status=0
env "${envs[@]}" CKPT_REAL_AGENTS=1 CKPT_BIN="$tmp/ckpt" \
	go test ./harness -run 'TestRealAgents' -count=1 -v -parallel "${CKPT_AGENTS_PARALLEL:-3}" -timeout 30m >"$tmp/out" 2>&1 || status=$?
if [ $status -ne 0 ] || [ -n "${CKPT_HARNESS_RECORD:-}" ] || [ -n "${CKPT_HARNESS_DEBUG:-}" ]; then
	cat "$tmp/out"
fi
echo "== real agents:"
grep -o 'HARNESS .*' "$tmp/out" | cut -c1-400 || true
grep -E '^(ok|FAIL|---)' "$tmp/out" || true
exit $status
