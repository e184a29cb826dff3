package store_test

import "testing"

// TestModelSeeds replays sequences TestModel's random exploration found
// failing, each to the step where it failed, named for what it found.
func TestModelSeeds(t *testing.T) {
	for _, c := range []struct {
		name  string
		seed  uint64
		steps int
	}{
		// A rewind wanting a file whose bytes were purged and a file
		// inside it (a later turn recorded it a folder): the file wins.
		{"purged file wins over a folder", 15792670585742285070, 400},
		// A redo of a retry makes moot again only what the retry tried:
		// a path the retried rewind's redo failed since (purged) stays
		// failed, and rewinding its turn retries it.
		{"redo of a retry leaves later failures", 16734651317258092937, 217},
		// A retry of a redo keeps the folders the rewind it redid wanted
		// as folders, empty or not.
		{"retry through a redo keeps a wanted folder", 1657290954214000392, 430},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			newHarness(t, c.seed, c.steps).run()
		})
	}
}
