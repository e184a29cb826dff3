package main

// runHook is `ckpt hook AGENT`: it always exits 0.
func runHook(args []string) int { return 0 }

// runInstall is `ckpt install AGENT [--dry-run]`.
func runInstall(args []string) int { return 2 }

// runUninstall is `ckpt uninstall AGENT`.
func runUninstall(args []string) int { return 2 }
