#!/usr/bin/env bash
# Builds ckpt's npm packages into OUT: the launcher package @ckpt-dev/ckpt
# and one package per platform holding static ckpt and ckpt-hook binaries,
# each packed with `npm pack`. Nothing is published.
#
#   scripts/npm-pack.sh VERSION OUT
set -euo pipefail
cd "$(dirname "$0")/.."
version=${1:?usage: scripts/npm-pack.sh VERSION OUT}
out=${2:?usage: scripts/npm-pack.sh VERSION OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

platforms=("linux amd64 x64" "linux arm64 arm64" "darwin amd64 x64" "darwin arm64 arm64")
optional=""
for p in "${platforms[@]}"; do
	read -r goos goarch cpu <<<"$p"
	name="@ckpt-dev/ckpt-$goos-$cpu"
	dir="$work/$goos-$cpu"
	mkdir -p "$dir/bin"
	for b in ckpt:. ckpt-hook:./cmd/ckpt-hook; do
		CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
			-ldflags "-s -w -X github.com/ckpt-dev/ckpt/cli.version=$version" \
			-o "$dir/bin/${b%%:*}" "${b#*:}"
	done
	cat >"$dir/package.json" <<JSON
{
  "name": "$name",
  "version": "$version",
  "description": "The ckpt binaries for $goos on $cpu; install @ckpt-dev/ckpt",
  "repository": {"type": "git", "url": "git+https://github.com/ckpt-dev/ckpt.git"},
  "os": ["$goos"],
  "cpu": ["$cpu"],
  "files": ["bin/"],
  "preferUnplugged": true
}
JSON
	optional="$optional${optional:+,
}    \"$name\": \"$version\""
	(cd "$dir" && npm pack --silent --pack-destination "$out" >/dev/null)
done

main="$work/ckpt"
cp -R packaging/npm/ckpt "$main"
cat >"$main/package.json" <<JSON
{
  "name": "@ckpt-dev/ckpt",
  "version": "$version",
  "description": "Make an AI coding agent's work undoable, turn by turn",
  "repository": {"type": "git", "url": "git+https://github.com/ckpt-dev/ckpt.git"},
  "bin": {"ckpt": "bin/ckpt.js"},
  "files": ["bin/", "README.md"],
  "engines": {"node": ">=18"},
  "optionalDependencies": {
$optional
  }
}
JSON
(cd "$main" && npm pack --silent --pack-destination "$out" >/dev/null)
ls "$out"/*.tgz
