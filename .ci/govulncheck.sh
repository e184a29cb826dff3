#!/usr/bin/env bash
# govulncheck against a vulnerability database built here: the online one
# is out of reach, but the module proxy serves golang.org/x/vulndb, whose
# data/osv holds every entry; its indexdb writes the v1 database
# govulncheck reads with -db file://.
#
# A vulnerability in a required module that ckpt's code calls fails the
# run. One in the standard library is printed, with the Go release that
# fixes it: the toolchain is the machine's, and releases must be built
# with at least that Go.
set -euo pipefail
cd "$(dirname "$0")/.."
vulndb=v0.0.0-20261105234957-e22db6528018
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
GOBIN="$tools" go install golang.org/x/vuln/cmd/govulncheck@v1.9.0
GOBIN="$tools" go install "golang.org/x/vulndb/cmd/indexdb@$vulndb"
osv="$(go env GOMODCACHE)/golang.org/x/vulndb@$vulndb/data/osv"
"$tools/indexdb" -vulns "$osv" -out "$tools/db"
"$tools/govulncheck" -db "file://$tools/db" -format json ./... >"$tools/out.json"
python3 - "$tools/out.json" <<'PY'
import json, sys

text = open(sys.argv[1]).read()
dec, i, called = json.JSONDecoder(), 0, {}
while True:
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    obj, i = dec.raw_decode(text, i)
    f = obj.get("finding")
    if not f or not f["trace"][0].get("function"):
        continue  # imported or required, never called
    mod = f["trace"][0].get("module", "?")
    called[(f["osv"], mod)] = f.get("fixed_version") or "no fix yet"
bad = 0
for (osv, mod), fixed in sorted(called.items()):
    if mod == "stdlib":
        print(f"govulncheck: {osv} in the standard library is called; build releases with Go {fixed.lstrip('v')} or newer")
    else:
        print(f"govulncheck: {osv} in {mod} is called; fixed in {fixed}")
        bad += 1
print(f"govulncheck: {bad} called vulnerabilities in required modules")
sys.exit(1 if bad else 0)
PY
