package store

import "time"

// SetClock replaces the wall clock s stamps its records with, so a test
// can step it back.
func SetClock(s *Store, now func() time.Time) { s.clock = now }
