package store

// Shown is what `ckpt show` says of a turn: its log entry (without the
// count of paths changed since the agent), its files as Files lists
// them, and the operation whose rewind of it stands ("" when none).
type Shown struct {
	Entry     Entry
	Files     []File
	RewoundBy string
}

// Show reads turn id for `ckpt show` from one load of the store, where
// Log, Files and RewoundBy would load it three times.
func (s *Store) Show(id string, withStatus bool) (*Shown, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, err := s.load()
	if err != nil {
		return nil, err
	}
	files, t, o, err := s.filesOf(v, id, withStatus)
	if err != nil {
		return nil, err
	}
	if o != nil {
		return &Shown{Entry: opEntry(v, o, s.failures(v), false), Files: files}, nil
	}
	out := &Shown{Entry: s.turnEntry(v, t, t == v.turns[len(v.turns)-1]), Files: files}
	failed := s.failures(v)
	ops := make([]Entry, 0, len(v.ops))
	seq := make([]int64, 0, len(v.ops))
	for _, o := range v.ops {
		ops = append(ops, opEntry(v, o, failed, false))
		seq = append(seq, o.seq)
	}
	out.RewoundBy = RewoundBy(newestFirst(ops, seq), id)
	return out, nil
}

// turnFiles lists t's paths for Files; run, when not nil, compares each
// with the disk.
func (s *Store) turnFiles(v *view, t *turn, run *statusRun) []File {
	out := make([]File, 0, len(t.list()))
	for _, f := range t.list() {
		ff := File{Path: f.path, Pre: f.pre, Post: f.post, Shell: f.cmd, Shared: v.sharedWith(f)}
		if run != nil {
			ff.Status, ff.Reason, ff.Disk = run.status(f)
			ff.HandEdited = run.handEdited(f)
			ff.Writing = run.beingWritten(f.path)
		} else if f.refused != "" {
			ff.Status, ff.Reason = StatusRefused, f.refused
		}
		out = append(out, ff)
	}
	return out
}
