package store

// SetLooseMax sets the most new blobs a batch of s keeps as loose files;
// a larger batch writes a pack.
func SetLooseMax(s *Store, n int) { s.looseMax = n }
