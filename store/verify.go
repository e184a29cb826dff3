package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/format"
	"github.com/ckpt-dev/ckpt/store/internal/pack"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// Verify checks every record and blob: each record's checksum, each
// blob's bytes against its name, and that every blob a record names is
// there. It returns one finding per damaged file (the error is for a store
// it could not read at all). Verify changes nothing.
func (s *Store) Verify() ([]Finding, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Finding
	add := func(file, format string, args ...any) {
		out = append(out, Finding{File: file, Reason: fmt.Sprintf(format, args...)})
	}
	refs := map[BlobID][]string{} // blob → files naming it
	sizes := map[BlobID]int64{}   // blob → the size its records give
	ref := func(img *Image, file string) {
		if img != nil && img.Kind == ImageContent && (img.Kept || img.SHA256 != "") {
			sum, err := ParseBlobID(img.SHA256)
			if err != nil {
				return // names no blob there could be
			}
			refs[sum] = append(refs[sum], file)
			if file != "index.json" {
				sizes[sum] = img.Size
			}
		}
	}
	checkRecords := func(name string) []record {
		data, err := s.dir.ReadFile(name)
		if err != nil {
			add(name, "unreadable: %v", err)
			return nil
		}
		res := decodeRecords(data)
		for _, l := range res.bad {
			add(name, "record on line %d is damaged (checksum or JSON)", l)
		}
		if res.torn {
			add(name, "its last record is torn (%d bytes after the last whole record); the next capture cuts it", int64(len(data))-res.good)
		}
		return res.recs
	}
	turnNames, err := storefs.Names(s.dir, "turns")
	if err != nil {
		return nil, errf("verify: read %s: %w", s.path("turns"), err)
	}
	for _, n := range turnNames {
		if !strings.HasSuffix(n, ".log") {
			continue
		}
		name := "turns/" + n
		recs := checkRecords(name)
		if len(recs) > 0 && recs[0].R != "turn" {
			add(name, "does not start with a turn record")
		} else if len(recs) > 0 {
			if err := format.CheckVersion("", "record format", recs[0].V, formatVersion); err != nil {
				add(name, "%v", err)
			}
		}
		for i := range recs {
			if r := &recs[i]; r.R == "pre" || r.R == "post" {
				if _, why := cleanRecordPath(r.Path); why != "" {
					add(name, "a %s record names %q: %s", r.R, r.Path, why)
				}
			}
			if recs[i].R == "pre" && recs[i].Img != nil && !recs[i].Img.Kept {
				continue
			}
			ref(recs[i].Img, name)
		}
	}
	if _, err := s.dir.Lstat("ops.log"); err == nil {
		for _, r := range checkRecords("ops.log") {
			if r.R != "op" {
				continue
			}
			if err := format.CheckVersion("", "record format", r.V, formatVersion); err != nil {
				add("ops.log", "operation %s was %v", r.ID, err)
				continue
			}
			name := "ops/" + r.ID + ".steps"
			for _, st := range checkRecords(name) {
				// A failed step writes nothing, and a path left as it is
				// was never kept: neither names a blob it needs.
				if st.Do != ActFail && st.Do != ActLeave {
					ref(st.Img, name)
					ref(st.Want, name)
					ref(st.Back, name)
				}
			}
		}
	}
	if seed, err := s.parseSeed(); err == nil {
		for _, t := range seed {
			for _, f := range t.files {
				if f.pre.Kind == ImageContent {
					if _, err := ParseBlobID(f.pre.SHA256); err != nil {
						add("index.json", "turn %s names blob %q, which is not 64 hex digits", t.id, f.pre.SHA256)
						continue
					}
					ref(&f.pre, "index.json")
				}
			}
		}
	} else if _, serr := s.dir.Lstat("index.json"); serr == nil {
		add("index.json", "%v", err)
	}
	sizeOf := func(sum BlobID) int64 {
		if n, ok := sizes[sum]; ok {
			return n
		}
		return -1
	}
	named := func(sum BlobID) string {
		if files := refs[sum]; len(files) > 0 {
			sort.Strings(files)
			return ", named by " + strings.Join(dedupe(files), ", ")
		}
		return ""
	}
	blobEnts, err := fs.ReadDir(s.dir.FS(), "blobs")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, errf("verify: read %s: %w", s.path("blobs"), err)
	}
	have := map[BlobID]bool{}
	for _, e := range blobEnts {
		name := e.Name()
		if strings.HasPrefix(name, ".tmp-") {
			continue
		}
		sum, err := ParseBlobID(strings.TrimSuffix(name, ".zst"))
		if err != nil || !e.Type().IsRegular() {
			add("blobs/"+name, "not a blob: the name is not 64 hex digits (with .zst) or it is not a file")
			continue
		}
		have[sum] = true
		if err := s.checkLoose(name, sizeOf(sum)); err != nil {
			add("blobs/"+name, "%v%s", strings.TrimPrefix(err.Error(), "store: "), named(sum))
		}
	}
	packs, bad := s.packs.list(s)
	var newer *format.NewerFormat
	for name, err := range bad {
		if errors.As(err, &newer) {
			add("packs/"+name, "%s", newer.Why())
			continue
		}
		add("packs/"+name, "unreadable, so the blobs it held are lost: %v", err)
	}
	if _, err := s.loadBaseline(); errors.As(err, &newer) {
		add(baselineFile, "%s", newer.Why())
	}
	packEnts, _ := storefs.Names(s.dir, "packs")
	for _, name := range packEnts {
		if !strings.HasPrefix(name, ".tmp-") && !strings.HasSuffix(name, ".pack") {
			add("packs/"+name, "not a pack: the name does not end in .pack")
		}
	}
	for _, p := range packs {
		for _, e := range p.ents {
			src := blobSource{f: p.f, off: e.Off, n: e.ZLen, zstd: true, where: "packs/" + p.name}
			size := e.Size
			if n := sizeOf(e.Sum); n >= 0 && n != size {
				add("packs/"+p.name, "blob %s is lost: %d bytes by the pack's index but %d by its records%s", e.Sum, size, n, named(e.Sum))
				have[e.Sum] = true
				continue
			}
			have[e.Sum] = true // present; damaged or not, said here
			if err := s.checkSource(e.Sum, size, src); err != nil {
				add("packs/"+p.name, "blob %s is lost: %s%s", e.Sum, blobWhy(err, src.where), named(e.Sum))
			}
		}
	}
	for sum, files := range refs {
		if have[sum] {
			continue
		}
		sort.Strings(files)
		add("blobs/"+sum.String(), "missing, named by %s", strings.Join(dedupe(files), ", "))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].File < out[j].File })
	return out, nil
}

func dedupe(xs []string) []string {
	var out []string
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// Prune drops turns chosen by o — older than the newest Keep, or older
// than OlderThan — and deletes the blobs nothing refers to any more. Blobs
// named by operations' steps stay, so every kept rewind can be undone;
// turns of the seed's index.json are never dropped (ckpt does not rewrite
// that file).
func (s *Store) Prune(o PruneOptions) (*PruneResult, error) {
	unlock, err := s.lockAll()
	if err != nil {
		return nil, err
	}
	defer unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	res := &PruneResult{}
	drop := map[string]bool{}
	n := len(v.turns)
	for i, t := range v.turns {
		old := (o.Keep > 0 && i < n-o.Keep) ||
			(o.OlderThan > 0 && time.Since(time.Unix(0, t.at)) > o.OlderThan)
		if old && !t.seed {
			drop[t.id] = true
			res.Turns = append(res.Turns, t.id)
		}
	}
	live := map[BlobID]bool{}
	keep := func(img *Image) {
		if img != nil && img.Kind == ImageContent {
			if sum, err := ParseBlobID(img.SHA256); err == nil {
				live[sum] = true
			}
		}
	}
	for _, t := range v.turns {
		if drop[t.id] {
			continue
		}
		for _, f := range t.files {
			keep(&f.pre)
			keep(f.post)
		}
	}
	// The baseline's blobs are the pre-images of the next shell command;
	// a newer pack's blobs, or a newer baseline's, are beyond judging.
	b, err := s.loadBaseline()
	if errors.Is(err, ErrNewerFormat) {
		return nil, errf("prune: %w", err)
	}
	_, bad := s.packs.list(s)
	for _, err := range bad {
		if errors.Is(err, ErrNewerFormat) {
			return nil, errf("prune: %w", err)
		}
	}
	if b != nil {
		for i := range b.entries {
			if b.entries[i].kind == baseFile {
				live[b.entries[i].sum] = true
			}
		}
	}
	for _, op := range v.ops {
		recs, err := s.steps(op.id)
		if err != nil {
			return nil, errf("prune: %w", err)
		}
		for i := range recs {
			keep(recs[i].Img)
			keep(recs[i].Want)
			keep(recs[i].Back)
		}
	}
	if !o.DryRun {
		// Records go first: a crash then leaves unreferenced blobs, never
		// records naming deleted ones.
		for id := range drop {
			name := turnFileName(id)
			if err := s.dir.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return res, errf("prune: remove %s: %w", s.path(name), err)
			}
		}
	}
	ents, err := fs.ReadDir(s.dir.FS(), "blobs")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, errf("prune: read %s: %w", s.path("blobs"), err)
	}
	fp := newFailpoint("prune")
	if err := s.packStored(ents, live, res, o.DryRun, fp); err != nil {
		return res, err
	}
	for _, e := range ents {
		sum, err := ParseBlobID(strings.TrimSuffix(e.Name(), ".zst"))
		if err != nil {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if live[sum] {
			// A loose copy of a blob a pack holds too (a small capture
			// keeps one without reading the packs' indexes) goes, once the
			// packed copy reads back whole.
			if src, ok := s.packs.find(s, sum, false); ok && s.checkSource(sum, -1, src) == nil {
				res.BytesFreed += fi.Size()
				if !o.DryRun {
					if err := s.dir.Remove("blobs/" + e.Name()); err != nil {
						return res, errf("prune: remove %s: %w", s.path("blobs/"+e.Name()), err)
					}
				}
			}
			continue
		}
		res.Blobs++
		res.BytesFreed += fi.Size()
		if !o.DryRun {
			if err := s.dir.Remove("blobs/" + e.Name()); err != nil {
				return res, errf("prune: remove %s: %w", s.path("blobs/"+e.Name()), err)
			}
		}
	}
	if err := s.prunePacks(live, res, o.DryRun, fp); err != nil {
		return res, err
	}
	return res, nil
}

// packStored puts the live loose blobs kept as they are (see
// looseStoredMax) into one pack, compressed past storedMax (a small
// file's whole disk block saved either way), and makes it durable; the
// loop after it in Prune then removes each loose copy once the packed one
// reads back whole, so a crash at any point leaves every blob somewhere.
// A loose blob that does not hash to its name is left for verify to name.
func (s *Store) packStored(ents []fs.DirEntry, live map[BlobID]bool, res *PruneResult, dry bool, fp *failpoint) error {
	b, err := s.blobDir()
	if err != nil {
		return nil // no blobs folder: nothing loose
	}
	var w *packWriter
	var z []byte
	for _, e := range ents {
		sum, err := ParseBlobID(strings.TrimSuffix(e.Name(), ".zst"))
		if err != nil || !live[sum] || !strings.HasSuffix(e.Name(), ".zst") {
			continue
		}
		if fi, err := e.Info(); err != nil || !fi.Mode().IsRegular() || fi.Size() > looseStoredMax+16 {
			continue
		}
		if _, ok := s.packs.find(s, sum, false); ok {
			continue
		}
		f, n, err := openRegular(b, e.Name())
		if err != nil {
			continue
		}
		frame := make([]byte, n)
		_, err = io.ReadFull(f, frame)
		f.Close()
		if err != nil {
			continue
		}
		data, ok := storedPayload(frame)
		if !ok || BlobID(sha256.Sum256(data)) != sum {
			continue
		}
		if len(data) <= storedMax {
			z = append(z[:0], frame...) // kept as it is in a pack too
		} else {
			z = zstdPackEncoder().EncodeAll(data, z[:0])
		}
		res.Packed++
		// The loop after this counts the loose copy it removes.
		res.BytesFreed -= int64(len(z))
		if dry {
			res.BytesFreed += n
			continue
		}
		if w == nil {
			w = s.newPackWriter(fp)
		}
		if err := w.add(sum, z, int64(len(data))); err != nil {
			w.abort()
			return errf("prune: %w", err)
		}
	}
	if w == nil {
		return nil
	}
	if err := w.commit(); err != nil {
		return errf("prune: %w", err)
	}
	if err := storefs.SyncFS(s.dir); err != nil {
		return errf("prune: sync %s: %w", s.path("packs"), err)
	}
	fp.hit()
	s.packs.forget()
	return nil
}

// prunePacks drops the blobs nothing refers to from the packs: a pack
// holding none that are live is removed; one holding some is rewritten
// with only those (frames copied as they are), and the new pack is made
// durable before the old one goes, so a crash at any point leaves every
// live blob in at least one pack. Leftovers of killed writers (.tmp-
// files) go too: the caller holds blobs.lock exclusively, so no capture
// is writing.
func (s *Store) prunePacks(live map[BlobID]bool, res *PruneResult, dry bool, fp *failpoint) error {
	if !dry {
		for _, dir := range []string{"blobs", "packs"} {
			list, _ := storefs.Names(s.dir, dir)
			for _, n := range list {
				if strings.HasPrefix(n, ".tmp-") && s.dir.Remove(dir+"/"+n) == nil {
					fp.hit()
				}
			}
		}
	}
	packs, _ := s.packs.list(s)
	sort.Slice(packs, func(i, j int) bool { return packs[i].name < packs[j].name })
	changed := false
	for _, p := range packs {
		var keep []pack.Entry
		for _, e := range p.ents {
			if live[e.Sum] {
				keep = append(keep, e)
				continue
			}
			res.Blobs++
			res.BytesFreed += e.ZLen
		}
		if len(keep) == len(p.ents) || dry {
			continue
		}
		changed = true
		name := "packs/" + p.name
		if len(keep) > 0 {
			w := s.newPackWriter(fp)
			for _, e := range keep {
				z := make([]byte, e.ZLen)
				if _, err := p.f.ReadAt(z, e.Off); err != nil {
					w.abort()
					return errf("prune: read %s: %w", s.path(name), err)
				}
				if err := w.add(e.Sum, z, e.Size); err != nil {
					w.abort()
					return errf("prune: %w", err)
				}
			}
			if err := w.commit(); err != nil {
				return errf("prune: %w", err)
			}
			if err := storefs.SyncFS(s.dir); err != nil {
				return errf("prune: sync %s: %w", s.path("packs"), err)
			}
			fp.hit()
		}
		if err := s.dir.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errf("prune: remove %s: %w", s.path(name), err)
		}
		fp.hit()
	}
	if changed {
		s.packs.forget()
		if err := storefs.SyncDir(s.dir, "packs"); err != nil {
			return errf("prune: sync %s: %w", s.path("packs"), err)
		}
	}
	return nil
}

// blobWhy is what a blob read error says, without the blob and file the
// finding already names.
func blobWhy(err error, where string) string {
	msg := strings.TrimSuffix(err.Error(), ": "+ErrCorrupt.Error())
	if _, rest, ok := strings.Cut(msg, " in "); ok && strings.HasPrefix(msg, "blob ") {
		if _, why, ok := strings.Cut(rest, where+" "); ok {
			return why
		}
	}
	return msg
}
