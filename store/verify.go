package store

import (
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/format"
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
	if _, err := s.loadMidx(); errors.As(err, &newer) {
		add(midxFile, "%s", newer.Why())
	} else if err != nil {
		add(midxFile, "%v (only a lookup index: the next repack writes it again)", strings.TrimPrefix(err.Error(), "store: "))
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
	m, _ := s.loadMidx()
	for _, p := range packs {
		covered := m.Covers(p.name)
		for _, e := range p.ents {
			if _, me, ok := m.Find(e.Sum); covered && (!ok || me.Size != e.Size) {
				add(midxFile, "does not locate blob %s of packs/%s (only a lookup index: the next repack writes it again)", e.Sum, p.name)
			}
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
