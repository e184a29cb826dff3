#!/usr/bin/env bash
# Installs ckpt the way agent users do, from npm, and runs it: builds the
# npm packages (scripts/npm-pack.sh), publishes them to a private registry
# (verdaccio) started for this test on 127.0.0.1, installs @ckpt-dev/ckpt
# from it with `npm install -g` into a scratch prefix, and checks
# `ckpt --version`, `ckpt install claude` and a hooked turn through the
# installed hooks, rewound and undone; then an upgrade to a newer version,
# after which the same hooks still run; then `npx`, whose install warns.
# Nothing is published anywhere else. verdaccio comes from npm once, into
# $CKPT_TOOLS_CACHE (default ~/.cache/ckpt-tools).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

cache=${CKPT_TOOLS_CACHE:-$HOME/.cache/ckpt-tools}
vd="$cache/verdaccio-6.8.0"
if [ ! -x "$vd/node_modules/.bin/verdaccio" ]; then
	rm -rf "$vd.tmp" && mkdir -p "$vd.tmp"
	# 6.8.0 runs on Node 20; its node-fetch must be pinned to 2.7.0.
	cat >"$vd.tmp/package.json" <<'JSON'
{"private": true, "dependencies": {"verdaccio": "6.8.0"}, "overrides": {"node-fetch": "2.7.0"}}
JSON
	(cd "$vd.tmp" && timeout 300 npm install --no-audit --no-fund --loglevel=error >/dev/null)
	rm -rf "$vd" && mv "$vd.tmp" "$vd"
fi

work=$(mktemp -d)
pid=""
cleanup() {
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
reg="http://127.0.0.1:$port/"
mkdir -p "$work/storage"
cat >"$work/config.yaml" <<YAML
storage: $work/storage
auth:
  htpasswd:
    file: $work/htpasswd
    max_users: 10
uplinks: {}
packages:
  '@ckpt-dev/*':
    access: \$all
    publish: \$authenticated
  '**':
    access: \$all
listen: 127.0.0.1:$port
log: {type: stdout, format: pretty, level: warn}
YAML
"$vd/node_modules/.bin/verdaccio" --config "$work/config.yaml" >"$work/verdaccio.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	curl -fsS "$reg-/ping" >/dev/null 2>&1 && break
	sleep 0.2
done
curl -fsS "$reg-/ping" >/dev/null || { cat "$work/verdaccio.log"; exit 1; }

# A user for publishing, and an npm that asks this registry only.
token=$(curl -fsS -X PUT -H 'Content-Type: application/json' \
	-d '{"name":"ci","password":"ci-password"}' \
	"$reg-/user/org.couchdb.user:ci" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
export npm_config_userconfig="$work/npmrc"
printf 'registry=%s\n//127.0.0.1:%s/:_authToken=%s\n' "$reg" "$port" "$token" >"$npm_config_userconfig"
export npm_config_cache="$work/npm-cache" npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false

publish() {
	rm -rf "$work/pkgs" && mkdir -p "$work/pkgs"
	scripts/npm-pack.sh "$1" "$work/pkgs" >/dev/null
	for t in "$work"/pkgs/*.tgz; do
		npm publish --loglevel=error "$t" >/dev/null
	done
}

fail() {
	echo "npm install test: $*" >&2
	exit 1
}

prefix="$work/prefix"
publish 0.0.1
npm install -g --prefix "$prefix" --loglevel=error @ckpt-dev/ckpt >/dev/null
ckpt="$prefix/bin/ckpt"
"$ckpt" --version | grep -q '^ckpt 0.0.1' || fail "ckpt --version: $("$ckpt" --version)"

# A project, installed from npm, and a turn through the hook Claude Code
# would run.
proj="$work/proj"
mkdir -p "$proj" && cd "$proj"
git init -q .
echo one >a.txt
"$ckpt" install claude >"$work/install.out" 2>&1 || { cat "$work/install.out"; fail "ckpt install claude"; }
grep -q 'warning' "$work/install.out" && { cat "$work/install.out"; fail "install from a global npm install warned"; }
hook=$(python3 - "$proj/.claude/settings.local.json" <<'PY'
import json, sys
cfg = json.load(open(sys.argv[1]))
print(cfg["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"])
PY
)
case "$hook" in
*"$prefix"*ckpt-hook*) ;;
*) fail "the hook runs $hook, not the ckpt-hook npm installed under $prefix" ;;
esac
turn() { # prompt content
	local sid=s1
	eval "$hook" <<<"{\"hook_event_name\":\"UserPromptSubmit\",\"session_id\":\"$sid\",\"cwd\":\"$proj\",\"prompt\":\"$1\"}"
	eval "$hook" <<<"{\"hook_event_name\":\"PreToolUse\",\"session_id\":\"$sid\",\"cwd\":\"$proj\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$proj/a.txt\"}}"
	printf '%s\n' "$2" >"$proj/a.txt"
	eval "$hook" <<<"{\"hook_event_name\":\"PostToolUse\",\"session_id\":\"$sid\",\"cwd\":\"$proj\",\"tool_name\":\"Write\",\"tool_input\":{\"file_path\":\"$proj/a.txt\"}}"
	eval "$hook" <<<"{\"hook_event_name\":\"Stop\",\"session_id\":\"$sid\",\"cwd\":\"$proj\"}"
}
turn "write two" two
"$ckpt" log --json | grep -q 'write two' || fail "the hooked turn is not in ckpt log: $("$ckpt" log)"
"$ckpt" rewind 1 --yes >/dev/null
[ "$(cat a.txt)" = one ] || fail "rewind left a.txt as $(cat a.txt)"
"$ckpt" undo --yes >/dev/null
[ "$(cat a.txt)" = two ] || fail "undo left a.txt as $(cat a.txt)"

# An upgrade keeps the hooks working: they name the platform package's
# binary, which npm replaces in place.
cd "$repo"
publish 0.0.2
npm install -g --prefix "$prefix" --loglevel=error @ckpt-dev/ckpt@0.0.2 >/dev/null
"$ckpt" --version | grep -q '^ckpt 0.0.2' || fail "after the upgrade: $("$ckpt" --version)"
cd "$proj"
turn "write three" three
"$ckpt" log --json | grep -q 'write three' || fail "after the upgrade the hooks recorded nothing"

# npx runs from a cache that gets cleared: an install from there warns.
rm -rf "$proj/.claude"
npx --yes @ckpt-dev/ckpt install claude >"$work/npx.out" 2>&1 || { cat "$work/npx.out"; fail "npx ckpt install claude"; }
grep -q "warning: .*npx" "$work/npx.out" || { cat "$work/npx.out"; fail "ckpt install from npx did not warn"; }
echo "npm install test: published to a local registry, installed with npm install -g and npx, ran --version, install claude, a hooked turn rewound and undone, and an upgrade"
