package store

// SetLooseMax sets the most new blobs a batch of s keeps as loose files;
// a larger batch writes a pack.
func SetLooseMax(s *Store, n int) { s.looseMax = n }

// SetRestoreFault makes each restore or delete of a path for which f
// returns an error fail with it before anything is written, as a full disk
// fails a write beside the file. Set it only between operations.
func SetRestoreFault(s *Store, f func(path string) error) { s.restoreFault = f }
