// Package setup writes and checks the agents' project configs for ckpt's
// hooks: Install adds them (merged into a shared config as text, so the
// user's bytes stay as they were, or as a file of ckpt's own: a plugin,
// an extension, hook scripts), Uninstall takes out exactly what Install
// put in, Exclude keeps the files that name this machine's binary out of
// git, Diagnose is `ckpt doctor`, and ApproveCodex records Codex's
// approval of the hooks.
//
// Package agent holds what the hooks do when they run; this package is
// apart from it so that ckpt-hook, which an agent starts on every tool
// call, links neither the config editors nor hujson.
package setup
