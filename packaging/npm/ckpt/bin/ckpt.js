#!/usr/bin/env node
// The npm launcher of ckpt: it runs the prebuilt binary that npm installed
// with this platform's package (one optional dependency per platform, so
// nothing is downloaded after install). Hooks never go through it:
// `ckpt install` points them at the binary itself, next to which
// ckpt-hook stands, so a hook starts without Node.
"use strict";

const { spawnSync } = require("child_process");

const packages = {
  "linux x64": "@ckpt-dev/ckpt-linux-x64",
  "linux arm64": "@ckpt-dev/ckpt-linux-arm64",
  "darwin x64": "@ckpt-dev/ckpt-darwin-x64",
  "darwin arm64": "@ckpt-dev/ckpt-darwin-arm64",
};

function fail(msg) {
  process.stderr.write(`ckpt: ${msg}\n`);
  process.exit(1);
}

const pkg = packages[`${process.platform} ${process.arch}`];
if (!pkg) {
  fail(`no prebuilt binary for ${process.platform}/${process.arch}; build ckpt from source with Go 1.26: go install github.com/ckpt-dev/ckpt@latest`);
}
let bin;
try {
  bin = require.resolve(`${pkg}/bin/ckpt`);
} catch {
  fail(`${pkg} is not installed (optional dependencies were left out?); install again with: npm install -g @ckpt-dev/ckpt`);
}
const run = spawnSync(bin, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  fail(`running ${bin}: ${run.error.message}`);
}
if (run.signal) {
  process.kill(process.pid, run.signal);
}
process.exit(run.status === null ? 1 : run.status);
