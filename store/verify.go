package store

import (
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/format"
	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// Verify checks every record and blob: each record's checksum, each
// blob's bytes against its name, that every blob a record names is
// there, and that every conversation file reads. It returns one finding
// per damaged file (the error is for a store it could not read at all).
// Verify changes nothing.
//
// It reads one consistent state: it holds blobs.lock and repack.lock
// shared throughout, so prune, purge, retention, repack, rewind, undo,
// redo and recovery (every writer that removes or rewrites a store
// file) wait for it, while hooks, which only add files and append
// records under the same shared blobs.lock, go on. A turn file that
// looks torn at its end, which a hook's append in flight also shows, is
// read again under the store lock, held only for that read.
func (s *Store) Verify() ([]Finding, error) {
	unlock, err := s.lockRead()
	if err != nil {
		return nil, errf("verify: %w", err)
	}
	defer unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	v := &verifier{s: s, refs: map[BlobID][]string{}, sizes: map[BlobID]int64{}, have: map[BlobID]bool{}}
	if err := v.turns(); err != nil {
		return nil, err
	}
	v.ops()
	v.seed()
	v.conversations()
	if err := v.loose(); err != nil {
		return nil, err
	}
	v.packs()
	v.missing()
	sort.SliceStable(v.out, func(i, j int) bool { return v.out[i].File < v.out[j].File })
	return v.out, nil
}

// verifier gathers Verify's findings, and the blobs records name, as it
// reads the store's files one kind at a time.
type verifier struct {
	s     *Store
	out   []Finding
	refs  map[BlobID][]string // blob → files naming it
	sizes map[BlobID]int64    // blob → the size its records give
	have  map[BlobID]bool     // blobs found, loose or packed
}

func (v *verifier) add(f Finding) { v.out = append(v.out, f) }

// ref notes that file names the blob of img.
func (v *verifier) ref(img *Image, file string) {
	if img != nil && img.Kind == ImageContent && (img.Kept || !img.SHA256.IsZero()) {
		sum, err := blobOf(*img)
		if err != nil {
			return // names no blob there could be
		}
		v.refs[sum] = append(v.refs[sum], file)
		if file != "index.json" {
			v.sizes[sum] = img.Size
		}
	}
}

// checkRecords reads a record file, reporting damaged and torn records.
func (v *verifier) checkRecords(name string) []record.Line {
	data, err := v.s.dir.ReadFile(name)
	if err != nil {
		v.add(Finding{Kind: FindUnreadable, File: name, Detail: err.Error()})
		return nil
	}
	res := record.Decode(data)
	if res.Torn {
		// Perhaps an append in flight: read it again with appends held
		// off. A tail torn for good (a killed writer) is still there.
		if again, err := v.s.readLocked(name); err == nil {
			data, res = again, record.Decode(again)
		}
	}
	for _, l := range res.Bad {
		v.add(Finding{Kind: FindDamagedRecord, File: name, Line: l})
	}
	if res.Torn {
		v.add(Finding{Kind: FindTornRecord, File: name, Bytes: int64(len(data)) - res.Good})
	}
	return res.Recs
}

// turns checks every turn file.
func (v *verifier) turns() error {
	turnNames, err := storefs.Names(v.s.dir, "turns")
	if err != nil {
		return errf("verify: read %s: %w", v.s.path("turns"), err)
	}
	for _, n := range turnNames {
		if !strings.HasSuffix(n, ".log") {
			continue
		}
		name := "turns/" + n
		recs := v.checkRecords(name)
		if len(recs) > 0 && recs[0].R != "turn" {
			v.add(Finding{Kind: FindNoTurnRecord, File: name})
		} else if len(recs) > 0 {
			if err := format.CheckVersion("", "record format", recs[0].V, formatVersion); err != nil {
				v.add(Finding{Kind: FindNewerFormat, File: name, Detail: err.Error()})
			}
		}
		for i := range recs {
			if r := &recs[i]; r.R == "pre" || r.R == "post" {
				if _, why := cleanRecordPath(r.Path); why != "" {
					v.add(Finding{Kind: FindBadPath, File: name, Record: r.R, Path: r.Path, Detail: why})
				}
			}
			v.ref(neededImage(&recs[i]), name)
		}
	}
	return nil
}

// neededImage is the image of a turn file's record whose blob the store
// must hold: what verify checks is there, and so what prune keeps. A
// pre-image not kept (over the size limit) names no blob.
func neededImage(r *record.Line) *Image {
	switch {
	case r.R == "pre" && r.Img != nil && !r.Img.Kept:
		return nil
	case r.R == "pre" || r.R == "post":
		return r.Img
	}
	return nil
}

// ops checks ops.log and every operation's steps file.
func (v *verifier) ops() {
	if _, err := v.s.dir.Lstat("ops.log"); err != nil {
		return
	}
	for _, r := range v.checkRecords("ops.log") {
		if r.R != "op" {
			continue
		}
		if err := format.CheckVersion("", "record format", r.V, formatVersion); err != nil {
			v.add(Finding{Kind: FindNewerOp, File: "ops.log", ID: r.ID, Detail: err.Error()})
			continue
		}
		name := "ops/" + r.ID + ".steps"
		for _, st := range v.checkRecords(name) {
			// A failed step writes nothing, and a path left as it is
			// was never kept: neither names a blob it needs.
			if st.Do != ActFail && st.Do != ActLeave {
				v.ref(st.Img, name)
				v.ref(st.Want, name)
				v.ref(st.Back, name)
			}
		}
	}
}

// seed checks a seed store's index.json.
func (v *verifier) seed() {
	seed, err := v.s.parseSeed()
	if err != nil {
		if _, serr := v.s.dir.Lstat("index.json"); serr == nil {
			v.add(Finding{Kind: FindBadSeed, File: "index.json", Detail: err.Error()})
		}
		return
	}
	for _, t := range seed {
		for _, f := range t.list() {
			if f.pre.Kind == ImageContent {
				if _, err := blobOf(f.pre); err != nil {
					v.add(Finding{Kind: FindSeedBlobName, File: "index.json", ID: t.id, Path: f.badBlob, Detail: badBlobWhy(f.badBlob)})
					continue
				}
				v.ref(&f.pre, "index.json")
			}
		}
	}
}

// sizeOf is the size records give the blob sum, or -1.
func (v *verifier) sizeOf(sum BlobID) int64 {
	if n, ok := v.sizes[sum]; ok {
		return n
	}
	return -1
}

// named lists the files that name the blob sum, sorted, for a finding
// about it.
func (v *verifier) named(sum BlobID) []string {
	files := v.refs[sum]
	sort.Strings(files)
	return dedupe(files)
}

// loose checks every loose blob against its name.
func (v *verifier) loose() error {
	s := v.s
	blobEnts, err := fs.ReadDir(s.dir.FS(), "blobs")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errf("verify: read %s: %w", s.path("blobs"), err)
	}
	for _, e := range blobEnts {
		name := e.Name()
		if strings.HasPrefix(name, ".tmp-") {
			continue
		}
		sum, err := ParseBlobID(strings.TrimSuffix(name, ".zst"))
		if err != nil || !e.Type().IsRegular() {
			v.add(Finding{Kind: FindNotBlob, File: "blobs/" + name})
			continue
		}
		v.have[sum] = true
		if err := s.checkLoose(name, v.sizeOf(sum)); err != nil {
			v.add(Finding{Kind: FindDamagedBlob, File: "blobs/" + name, Detail: blobWhy(err, "blobs/"+name), Named: v.named(sum)})
		}
	}
	return nil
}

// packs checks every pack, the lookup index and the baseline's version.
func (v *verifier) packs() {
	s := v.s
	packs, bad := s.packs.list(s)
	var newer *format.NewerFormat
	for name, err := range bad {
		if errors.As(err, &newer) {
			v.add(Finding{Kind: FindNewerFormat, File: "packs/" + name, Detail: newer.Why()})
			continue
		}
		v.add(Finding{Kind: FindLostPack, File: "packs/" + name, Detail: err.Error()})
	}
	if _, err := s.loadMidx(); errors.As(err, &newer) {
		v.add(Finding{Kind: FindNewerFormat, File: midxFile, Detail: newer.Why()})
	} else if err != nil {
		v.add(Finding{Kind: FindBadPackIndex, File: midxFile, Detail: strings.TrimPrefix(err.Error(), "store: ")})
	}
	if _, err := s.loadBaseline(); errors.As(err, &newer) {
		v.add(Finding{Kind: FindNewerFormat, File: baselineFile, Detail: newer.Why()})
	}
	packEnts, _ := storefs.Names(s.dir, "packs")
	for _, name := range packEnts {
		if !strings.HasPrefix(name, ".tmp-") && !strings.HasSuffix(name, ".pack") {
			v.add(Finding{Kind: FindNotPack, File: "packs/" + name})
		}
	}
	m, _ := s.loadMidx()
	for _, p := range packs {
		covered := m.Covers(p.name)
		for _, e := range p.ents {
			if _, me, ok := m.Find(e.Sum); covered && (!ok || me.Size != e.Size) {
				v.add(Finding{Kind: FindUnindexed, File: midxFile, Blob: e.Sum, Pack: p.name})
			}
			src := blobSource{f: p.f, off: e.Off, n: e.ZLen, zstd: true, where: "packs/" + p.name}
			size := e.Size
			if n := v.sizeOf(e.Sum); n >= 0 && n != size {
				v.add(Finding{Kind: FindBlobSize, File: "packs/" + p.name, Blob: e.Sum, Size: size, Want: n, Named: v.named(e.Sum)})
				v.have[e.Sum] = true
				continue
			}
			v.have[e.Sum] = true // present; damaged or not, said here
			if err := s.checkSource(e.Sum, size, src); err != nil {
				v.add(Finding{Kind: FindLostBlob, File: "packs/" + p.name, Blob: e.Sum, Detail: blobWhy(err, src.where), Named: v.named(e.Sum)})
			}
		}
	}
}

// missing reports every blob records name that is neither loose nor packed.
func (v *verifier) missing() {
	for sum := range v.refs {
		if v.have[sum] {
			continue
		}
		v.add(Finding{Kind: FindMissingBlob, File: "blobs/" + sum.String(), Named: v.named(sum)})
	}
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

// blobWhy is what a blob read error says, without the blob and file the
// finding already names.
func blobWhy(err error, where string) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && path.Base(pe.Path) == path.Base(where) {
		return pe.Op + ": " + pe.Err.Error() // it could not be opened or read
	}
	msg := strings.TrimPrefix(strings.TrimSuffix(err.Error(), ": "+ErrCorrupt.Error()), "store: ")
	if _, rest, ok := strings.Cut(msg, " in "); ok && strings.HasPrefix(msg, "blob ") {
		if _, why, ok := strings.Cut(rest, where+" "); ok {
			return why
		}
	}
	return msg
}
