package agent

import (
	"errors"
	"testing"

	"github.com/tailscale/hujson"
)

// The tests read configs with comments as the ckpt binary does.
func init() { UseJSONC(hujson.Standardize) }

// TestNoJSONCReader: without a reader of JSON with comments, an install
// into a config that allows them fails with that reason and writes
// nothing; a plain JSON config needs none.
func TestNoJSONCReader(t *testing.T) {
	defer UseJSONC(standardizeJSONC)
	UseJSONC(nil)
	gemini := jsonInstaller{file: ".gemini/settings.json", jsonc: true}
	if _, err := gemini.parse([]byte(`{"a": 1, // c` + "\n}")); !errors.Is(err, errNoJSONC) {
		t.Errorf("jsonc config without a reader: err %v, want errNoJSONC", err)
	}
	claude := jsonInstaller{file: ".claude/settings.local.json"}
	if _, err := claude.parse([]byte(`{"a": 1}`)); err != nil {
		t.Errorf("plain config without a reader: %v", err)
	}
}
