package store

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
)

func TestWatchRace(t *testing.T) {
	root := t.TempDir()
	s, _ := Open(root, Options{Create: true})
	for i := 0; i < 50; i++ {
		wr(t, root, fmt.Sprintf("f%d", i), "x")
	}
	s.Capture("1", TurnMeta{}, []string{filepath.Join(root, "f0")})
	s.Log(false)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 1; i < 50; i++ {
			s.Capture("1", TurnMeta{}, []string{filepath.Join(root, fmt.Sprintf("f%d", i))})
			s.Log(false)
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 50; i++ {
			s.WatchTargets()
		}
	}()
	wg.Wait()
}
