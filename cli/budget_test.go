package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

func TestLoadBudget(t *testing.T) {
	root := t.TempDir()
	b, err := loadBudget(root)
	if err != nil || b.MaxAge != store.DefaultBudget.MaxAge || b.MaxSize != store.DefaultBudget.MaxSize || b.Keep != store.DefaultBudget.Keep || !b.Auto || b.From != "" {
		t.Fatalf("no file: %+v %v", b, err)
	}
	os.MkdirAll(filepath.Join(root, ".osfoundry"), 0o700)
	write := func(s string) { os.WriteFile(filepath.Join(root, store.ConfigFile), []byte(s), 0o600) }
	write("{\n  // a week, half a gigabyte\n  \"retention\": {\"max_age\": \"7d\", \"max_size\": \"512MiB\", \"keep\": 5, \"auto\": false,},\n} // end")
	b, err = loadBudget(root)
	if err != nil || b.MaxAge != 7*24*time.Hour || b.MaxSize != 512<<20 || b.Keep != 5 || b.Auto {
		t.Fatalf("commented file: %+v %v", b, err)
	}
	write(`{"retention": {"max_size": 1000000, "max_age": "off"}}`)
	if b, err = loadBudget(root); err != nil || b.MaxSize != 1e6 || b.MaxAge != 0 || b.Keep != store.DefaultBudget.Keep {
		t.Fatalf("bytes and off: %+v %v", b, err)
	}
	for _, bad := range []string{`{"retention": {"max_days": 3}}`, `{"retention": {"max_size": "lots"}}`, `{"retention": {"keep": 0}}`, `{"retention": {"max_age": "-3d"}}`, `{`} {
		write(bad)
		if _, err := loadBudget(root); err == nil || !strings.Contains(err.Error(), store.ConfigFile) {
			t.Errorf("%s: want an error naming the file, got %v", bad, err)
		}
	}
}
