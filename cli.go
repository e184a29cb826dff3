package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"ckpt/store"
)

// errUsage marks a command-line mistake: exit 2.
var errUsage = errors.New("usage")

// args is a command's parsed command line. Flags may come before or
// after the positional arguments, as CONTRACT.md's synopses show them.
type args struct {
	vals  map[string]string
	multi map[string][]string // every value of a flag given more than once (--except A --except B)
	set   map[string]bool
	pos   []string
}

// parseArgs splits a command line. valued names the flags that take a
// value (--turn T or --turn=T); bools the ones that do not. "--" ends the
// flags.
func parseArgs(in []string, valued, bools []string) (*args, error) {
	a := &args{vals: map[string]string{}, multi: map[string][]string{}, set: map[string]bool{}}
	isIn := func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	}
	for i := 0; i < len(in); i++ {
		arg := in[i]
		if arg == "--" {
			a.pos = append(a.pos, in[i+1:]...)
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			a.pos = append(a.pos, arg)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		switch {
		case isIn(valued, name):
			if !hasVal {
				if i+1 >= len(in) {
					return nil, fmt.Errorf("--%s needs a value: %w", name, errUsage)
				}
				i++
				val = in[i]
			}
			a.vals[name] = val
			a.multi[name] = append(a.multi[name], val)
		case isIn(bools, name) && !hasVal:
			a.set[name] = true
		default:
			return nil, fmt.Errorf("unknown flag %s: %w", arg, errUsage)
		}
	}
	return a, nil
}

// rootOf finds the project root: --root or $CKPT_ROOT exactly, else the
// walk up from the working directory.
func rootOf(a *args) (string, error) {
	if r := a.vals["root"]; r != "" {
		return r, nil
	}
	if r := os.Getenv("CKPT_ROOT"); r != "" {
		return r, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find the project root: %w", err)
	}
	return store.FindRoot(wd), nil
}

// openStore opens the root's store; create is for commands that write
// records. Interrupted operations finished on the way are told on stderr.
func openStore(a *args, create bool) (*store.Store, error) {
	root, err := rootOf(a)
	if err != nil {
		return nil, err
	}
	opt := store.Options{Create: create, Notify: func(msg string) { fmt.Fprintln(os.Stderr, "ckpt: "+msg) }}
	if mb := a.vals["max-blob"]; mb != "" {
		n, err := parseSize(mb)
		if err != nil {
			return nil, fmt.Errorf("--max-blob %q: %v: %w", mb, err, errUsage)
		}
		opt.MaxBlob = n
	}
	s, err := store.Open(root, opt)
	if errors.Is(err, store.ErrNoStore) {
		return nil, fmt.Errorf("no checkpoint store in %s (nothing has been captured there; it would be in .osfoundry/checkpoints)", root)
	}
	return s, err
}

// parseSize reads "8388608", "8MiB", "8M", "512k".
func parseSize(s string) (int64, error) {
	mult := int64(1)
	low := strings.ToLower(strings.TrimSpace(s))
	for _, u := range []struct {
		suf string
		m   int64
	}{{"gib", 1 << 30}, {"mib", 1 << 20}, {"kib", 1 << 10}, {"gb", 1e9}, {"mb", 1e6}, {"kb", 1e3}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}, {"b", 1}} {
		if strings.HasSuffix(low, u.suf) {
			low, mult = strings.TrimSuffix(low, u.suf), u.m
			break
		}
	}
	var n int64
	if _, err := fmt.Sscan(low, &n); err != nil || n <= 0 {
		return 0, fmt.Errorf("not a size")
	}
	return n * mult, nil
}

// absPaths makes command-line paths absolute against the working
// directory, so the store can place them under the root.
func absPaths(ps []string) []string {
	wd, _ := os.Getwd()
	out := make([]string, len(ps))
	for i, p := range ps {
		if strings.HasPrefix(p, "/") {
			out[i] = p
		} else {
			out[i] = wd + "/" + p
		}
	}
	return out
}

// fail prints err for a user and returns the exit code it calls for.
func fail(err error) int {
	if err == nil {
		return 0
	}
	msg := err.Error()
	// The sentinel at the end of a wrapped error repeats what the sentence
	// before it already said.
	for _, s := range []error{errUsage, store.ErrNoStore, store.ErrRewound, store.ErrNewerTurn} {
		msg = strings.TrimSuffix(msg, ": "+s.Error())
	}
	msg = strings.ReplaceAll(msg, "store: ", "")
	fmt.Fprintln(os.Stderr, "ckpt: "+msg)
	if errors.Is(err, errUsage) {
		fmt.Fprintln(os.Stderr, "run `ckpt help` for the commands and their flags")
		return 2
	}
	return 1
}
