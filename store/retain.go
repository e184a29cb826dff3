package store

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// ConfigFile is the project's ckpt settings, relative to the root: a
// JSON object (comments and trailing commas allowed) whose "retention"
// key sets the budget automatic pruning keeps the store within:
//
//	{"retention": {
//	  "max_age": "30d",    // turns older than this go ("off": none by age)
//	  "max_size": "2GiB",  // the store's size cap ("off": none)
//	  "keep": 20,          // the newest turns, always kept
//	  "auto": true         // prune by itself after each turn
//	}}
//
// A key left out keeps its default (DefaultBudget).
const ConfigFile = ".osfoundry/ckpt.json"

// Budget is how much history the store keeps.
type Budget struct {
	MaxAge  time.Duration // 0: no limit by age
	MaxSize int64         // bytes; 0: no cap
	Keep    int           // the newest turns never dropped
	Auto    bool          // applied after each turn
	From    string        // the file it was read from, "" for the defaults
}

// DefaultBudget is the budget of a project without a ConfigFile: about
// what Claude Code keeps (30 days), and a cap no real session reaches
// but a runaway one (a loop rewriting a large file) does.
var DefaultBudget = Budget{MaxAge: 30 * 24 * time.Hour, MaxSize: 2 << 30, Keep: 20, Auto: true}

// String says the budget in a few words, for doctor.
func (b Budget) String() string {
	var parts []string
	if b.MaxSize > 0 {
		parts = append(parts, sizeWords(b.MaxSize))
	}
	if b.MaxAge > 0 {
		if b.MaxAge%(24*time.Hour) == 0 {
			parts = append(parts, fmt.Sprintf("%d days", b.MaxAge/(24*time.Hour)))
		} else {
			parts = append(parts, b.MaxAge.String())
		}
	}
	parts = append(parts, fmt.Sprintf("the newest %d turns always kept", b.Keep))
	if !b.Auto {
		parts = append(parts, "applied by hand only")
	}
	return strings.Join(parts, ", ")
}

// DiskUsage is the disk space the store's files take (their allocated
// blocks, as du counts them: a loose blob of a few bytes takes a block),
// what the budget's max_size caps.
func (s *Store) DiskUsage() (int64, error) {
	var n int64
	err := fs.WalkDir(s.dir.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil
		}
		if fi, err := d.Info(); err == nil {
			n += allocated(fi)
		}
		return nil
	})
	return n, err
}

// allocated is the space fi's file takes on disk, or its length when the
// file system does not say.
func allocated(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return fi.Size()
}

// RetainResult is what a retention pass did.
type RetainResult struct {
	PruneResult
	Before, After int64 // the store's disk usage (DiskUsage)
}

// Retain drops the turns the budget has no room for: those older than
// MaxAge, then the oldest others while the store is over MaxSize. It
// never drops the newest Keep turns, a turn of the seed's index.json, nor
// any turn an operation that can still be undone or redone names, nor
// any turn newer than one of those; operations' steps keep their bytes,
// so every undo and redo stays possible. Then, as prune, it deletes the
// blobs nothing names and merges packs.
func (s *Store) Retain(b Budget) (*RetainResult, error) {
	unlock, err := s.lockAll()
	if err != nil {
		return nil, err
	}
	defer unlock()
	fp := newFailpoint("retain")
	s.mu.Lock()
	defer s.mu.Unlock()
	res := &RetainResult{}
	if res.Before, err = s.DiskUsage(); err != nil {
		return nil, errf("retain: %w", err)
	}
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	drop, err := s.retainChoose(v, b, res.Before)
	if err != nil {
		return nil, err
	}
	for _, t := range v.turns {
		if drop[t.id] {
			res.Turns = append(res.Turns, t.id)
		}
	}
	if err := s.pruneDrop(v, drop, &res.PruneResult, false, fp); err != nil {
		return res, err
	}
	if err := s.stampRetained(); err != nil {
		return res, err
	}
	fp.hit()
	res.After, _ = s.DiskUsage()
	return res, nil
}

// retainChoose picks the turns to drop, oldest first, stopping at the
// first one that must stay.
func (s *Store) retainChoose(v *view, b Budget, size int64) (map[string]bool, error) {
	held := map[string]bool{}
	for _, stack := range [][]application{v.undo, v.redo} {
		for _, a := range stack {
			for _, id := range a.rewind.turns {
				held[id] = true
			}
		}
	}
	var cands []*turn
	for i, t := range v.turns {
		if t.seed {
			continue
		}
		if held[t.id] || i >= len(v.turns)-b.Keep {
			break
		}
		cands = append(cands, t)
	}
	drop := map[string]bool{}
	over := b.MaxSize > 0 && size > b.MaxSize
	var refs map[BlobID]int
	var sizes map[BlobID]int64
	var freed int64
	if over {
		// Each turn dropped frees the blobs no other record names: their
		// stored sizes come from one pass over packs and loose files.
		refs, sizes = s.blobRefs(v), s.storedSizes()
	}
	// Over the cap, turns go oldest first until what they alone name
	// brings the store under nine tenths of it, so the next turns do not
	// each pay for a pass.
	goal := size - b.MaxSize*9/10
	now := time.Now()
	for _, t := range cands {
		old := b.MaxAge > 0 && now.Sub(time.Unix(0, t.at)) > b.MaxAge
		if !old && (!over || freed >= goal) {
			break
		}
		drop[t.id] = true
		if over {
			seen := map[BlobID]bool{}
			for _, f := range t.list() {
				for _, img := range []*Image{&f.pre, f.post} {
					if sum, ok := imageBlob(img); ok && !seen[sum] {
						seen[sum] = true
						if refs[sum]--; refs[sum] == 0 {
							freed += sizes[sum]
						}
					}
				}
			}
		}
	}
	return drop, nil
}

// blobRefs counts, per blob, the turns naming it, with a turn more for
// the blobs operations' steps and the baseline name (never freed).
func (s *Store) blobRefs(v *view) map[BlobID]int {
	refs := map[BlobID]int{}
	for _, t := range v.turns {
		seen := map[BlobID]bool{}
		for _, f := range t.list() {
			for _, img := range []*Image{&f.pre, f.post} {
				if sum, ok := imageBlob(img); ok && !seen[sum] {
					seen[sum] = true
					refs[sum]++
				}
			}
		}
	}
	if live, err := s.liveBlobs(&view{ops: v.ops}, nil); err == nil {
		for sum := range live {
			refs[sum]++
		}
	}
	return refs
}

// storedSizes is the bytes each blob takes in the store: its frame in a
// pack, or its loose file.
func (s *Store) storedSizes() map[BlobID]int64 {
	sizes := map[BlobID]int64{}
	packs, _ := s.packs.list(s)
	for _, p := range packs {
		for _, e := range p.ents {
			sizes[e.Sum] += e.ZLen
		}
	}
	ents, _ := fs.ReadDir(s.dir.FS(), "blobs")
	for _, e := range ents {
		if sum, err := ParseBlobID(strings.TrimSuffix(e.Name(), ".zst")); err == nil {
			if fi, err := e.Info(); err == nil {
				sizes[sum] += fi.Size()
			}
		}
	}
	return sizes
}

func imageBlob(img *Image) (BlobID, bool) {
	if img == nil || img.Kind != ImageContent {
		return BlobID{}, false
	}
	sum, err := blobOf(*img)
	return sum, err == nil
}

// retainedFile's mtime is when the last retention pass ended.
const retainedFile = "retained"

// retainEvery is how often automatic retention runs at most: a pass
// reads every turn, so not after each one.
const retainEvery = time.Hour

func (s *Store) stampRetained() error {
	t := []byte(time.Now().UTC().Format(time.RFC3339) + "\n")
	if err := storefs.WriteAtomic(s.dir, retainedFile, t, 0o600, false); err != nil {
		return errf("retain: write %s: %w", s.path(retainedFile), err)
	}
	return nil
}

// MaintenanceDue reports whether a background pass after a turn may have
// work: a repack, a new table of the sweeps' baseline (its log past its
// share), or a retention pass (at most one an hour, whatever the
// budget says: the pass reads it). It reads a few names and stats and no
// config, so a hook can ask it at the end of every turn.
func (s *Store) MaintenanceDue() bool {
	return s.RepackDue() || s.baselineDue() || s.retainDue(Budget{Auto: true, MaxAge: 1})
}

// retainDue: automatic retention is on and the last pass (or, before the
// first, the store's making) is over retainEvery ago.
func (s *Store) retainDue(b Budget) bool {
	if !b.Auto || (b.MaxAge <= 0 && b.MaxSize <= 0) {
		return false
	}
	fi, err := s.dir.Lstat(retainedFile)
	if err != nil {
		fi, err = s.dir.Lstat(formatFile)
	}
	return err != nil || time.Since(fi.ModTime()) > retainEvery
}

// MaintainResult is what Maintain did.
type MaintainResult struct {
	Repack *RepackResult
	Retain *RetainResult
	// Baseline is set when the pass wrote the sweeps' baseline anew,
	// folding in its log (see compactBaseline).
	Baseline bool
}

// Maintain runs what MaintenanceDue finds due (everything when force is
// set): a repack, then a retention pass within b.
func (s *Store) Maintain(b Budget, force bool) (*MaintainResult, error) {
	res := &MaintainResult{}
	var err, folding error
	if s.baselineDue() {
		// A baseline that cannot be written anew (a full disk, say) must
		// not keep the repack and the retention pass, which free space,
		// from running: its error is returned after them.
		if res.Baseline, err = s.compactBaseline(); err != nil {
			folding = err
		}
	}
	if force || s.RepackDue() {
		if res.Repack, err = s.repack(false, force); err != nil {
			return res, errors.Join(folding, err)
		}
	}
	if force || s.retainDue(b) {
		if res.Retain, err = s.Retain(b); err != nil {
			return res, errors.Join(folding, err)
		}
	} else if !b.Auto && s.retainDue(Budget{Auto: true, MaxAge: 1}) {
		// Off by the budget: the stamp still moves, so hooks start no
		// pass for it again within the hour.
		if err := s.stampRetained(); err != nil {
			return res, errors.Join(folding, err)
		}
	}
	return res, folding
}

// sizeWords says n bytes as a budget is written: "2 GiB", "500 MiB".
func sizeWords(n int64) string {
	for _, u := range []struct {
		n    int64
		name string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.n && n%u.n == 0 {
			return fmt.Sprintf("%d %s", n/u.n, u.name)
		}
	}
	return humanBytes(n)
}
