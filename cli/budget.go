package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tailscale/hujson"

	"github.com/ckpt-dev/ckpt/store"
)

// The retention budget's file is read here, not in the store: the hook
// binary links the store, and parsing JSON with comments is no business of
// a hook (it only asks whether a pass may be due; the pass reads this).

// loadBudget reads root's ConfigFile; a project without one has
// store.DefaultBudget. A file that does not parse is an error naming it, and
// the caller keeps everything.
func loadBudget(root string) (store.Budget, error) {
	b := store.DefaultBudget
	name := filepath.Join(root, store.ConfigFile)
	fi, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return b, nil
	}
	if err != nil {
		return b, err
	}
	if !fi.Mode().IsRegular() {
		return b, fmt.Errorf("%s is not a regular file", name)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return b, err
	}
	b.From = name
	std, err := hujson.Standardize(append(data, '\n')) // a // comment may end the file
	if err != nil {
		return b, fmt.Errorf("%s: %v", name, err)
	}
	var cfg struct {
		Retention *struct {
			MaxAge  *string `json:"max_age"`
			MaxSize *any    `json:"max_size"`
			Keep    *int    `json:"keep"`
			Auto    *bool   `json:"auto"`
		} `json:"retention"`
	}
	if err := decodeStrict(std, &cfg); err != nil {
		return b, fmt.Errorf("%s: %v", name, err)
	}
	r := cfg.Retention
	if r == nil {
		return b, nil
	}
	if r.MaxAge != nil {
		if b.MaxAge, err = parseAge(*r.MaxAge); err != nil {
			return b, fmt.Errorf("%s: retention.max_age %q: %v", name, *r.MaxAge, err)
		}
	}
	if r.MaxSize != nil {
		if b.MaxSize, err = parseBudgetSize(*r.MaxSize); err != nil {
			return b, fmt.Errorf("%s: retention.max_size: %v", name, err)
		}
	}
	if r.Keep != nil {
		if *r.Keep < 1 {
			return b, fmt.Errorf("%s: retention.keep %d: keep at least the newest turn", name, *r.Keep)
		}
		b.Keep = *r.Keep
	}
	if r.Auto != nil {
		b.Auto = *r.Auto
	}
	return b, nil
}

// parseAge reads "30d", "72h", "90m" or "off".
func parseAge(s string) (time.Duration, error) {
	if s == "off" || s == "0" {
		return 0, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.ParseFloat(d, 64); err == nil && n > 0 {
			return time.Duration(n * float64(24*time.Hour)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errors.New(`not a duration like "30d" or "72h" (or "off")`)
	}
	return d, nil
}

// parseBudgetSize reads a number of bytes, "500MB", "2GiB" or "off".
func parseBudgetSize(v any) (int64, error) {
	switch x := v.(type) {
	case float64:
		if x < 0 {
			return 0, fmt.Errorf("%v is not a size", x)
		}
		return int64(x), nil
	case string:
		if x == "off" || x == "0" {
			return 0, nil
		}
		s := strings.TrimSpace(x)
		units := []struct {
			suf string
			n   float64
		}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
			{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
		mult := 1.0
		for _, u := range units {
			if rest, ok := strings.CutSuffix(s, u.suf); ok {
				s, mult = strings.TrimSpace(rest), u.n
				break
			}
		}
		n, err := strconv.ParseFloat(s, 64)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q is not a size like \"2GiB\" or \"500MB\" (or \"off\")", x)
		}
		return int64(n * mult), nil
	}
	return 0, fmt.Errorf("%v is not a size like \"2GiB\"", v)
}

// decodeStrict decodes JSON, refusing keys the target does not have.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
