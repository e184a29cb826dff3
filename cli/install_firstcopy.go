package cli

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

// The first sweep of a tree reads and keeps every file. Left to the
// agent's first shell command, a big tree makes that command wait
// minutes (and a hook stops it at its time bound, to go on at the next
// call); install offers to take it at once instead, with a progress bar.

// firstCopyChoice is what install was told about the first copy.
type firstCopyChoice int

const (
	firstCopyAsk firstCopyChoice = iota // ask at a terminal, else leave it to the first command
	firstCopyYes                        // --first-copy
	firstCopyNo                         // --no-first-copy
)

// offerFirstCopy takes the first copy of root's tree after an install,
// when there is none yet and the user wants it (asked at a terminal).
func offerFirstCopy(root, agentName string, choice firstCopyChoice) error {
	if choice == firstCopyNo {
		return nil
	}
	s, err := store.Open(root, store.Options{Create: true, Notify: func(msg string) { fmt.Fprintln(os.Stderr, "ckpt: "+escLines(msg)) }})
	if err != nil {
		return fmt.Errorf("install: first copy: %w", err)
	}
	defer s.Close()
	if s.HasBaseline() {
		if choice == firstCopyYes {
			fmt.Println("ckpt: the first copy of the folder is taken already")
		}
		return nil
	}
	if choice == firstCopyAsk {
		if !isTerminal(os.Stdin) || !isTerminal(os.Stderr) {
			fmt.Printf("ckpt: the agent's first shell command will keep a copy of every file first (`ckpt install %s --first-copy` takes it now)\n", agentName)
			return nil
		}
		fmt.Fprint(os.Stderr, "ckpt: take the first copy of the folder now, so the agent's first shell command does not wait for it? [Y/n] ")
		var answer string
		fmt.Fscanln(os.Stdin, &answer)
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "" && a != "y" && a != "yes" {
			fmt.Println("ckpt: the agent's first shell command will take it")
			return nil
		}
	}
	return takeFirstCopy(s, agentName)
}

// takeFirstCopy runs the first sweep with a progress bar on a terminal
// (files and bytes, rate, time left); Ctrl-C stops it between files,
// with nothing half-written.
func takeFirstCopy(s *store.Store, agentName string) error {
	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	go func() {
		if _, ok := <-sig; ok {
			close(stop)
		}
	}()
	p := &store.CopyProgress{}
	s.SetCopyControl(&store.CopyControl{Stop: stop, Progress: p})
	bar := isTerminal(os.Stderr)
	done := make(chan struct{})
	ticked := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(ticked)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if bar {
					fmt.Fprint(os.Stderr, "\r\x1b[K"+progressLine(p, time.Since(start)))
				}
			}
		}
	}()
	res, err := s.FirstCopy()
	close(done)
	<-ticked
	if bar {
		fmt.Fprint(os.Stderr, "\r\x1b[K")
	}
	var cs *store.CopyStopped
	if errors.As(err, &cs) {
		fmt.Fprintf(os.Stderr, "ckpt: the first copy stopped after %d of %d files; nothing is half-written, and the agent's first shell command (or `ckpt install %s --first-copy` again) goes on from there\n",
			cs.Files, cs.TotalFiles, agentName)
		return exitWith(exitError)
	}
	if err != nil {
		return fmt.Errorf("install: first copy: %w", err)
	}
	fmt.Printf("ckpt: took the first copy: %d files, %s, in %s\n", res.Read, present.Bytes(p.Bytes.Load()), time.Since(start).Round(100*time.Millisecond))
	return nil
}

// progressLine is the progress bar's one line: files and bytes read of
// the total, the rate, and the time left at that rate.
func progressLine(p *store.CopyProgress, took time.Duration) string {
	if !p.Listed.Load() {
		return fmt.Sprintf("first copy: listing the folder… %s", took.Round(time.Second))
	}
	files, total := p.Files.Load(), p.TotalFiles.Load()
	bytes, totalB := p.Bytes.Load(), p.TotalBytes.Load()
	const width = 24
	frac := 1.0
	if totalB > 0 {
		frac = float64(bytes) / float64(totalB)
	} else if total > 0 {
		frac = float64(files) / float64(total)
	}
	frac = min(max(frac, 0), 1)
	n := int(frac * width)
	line := fmt.Sprintf("first copy [%s%s] %d/%d files · %s/%s", strings.Repeat("█", n), strings.Repeat("░", width-n),
		files, total, present.Bytes(bytes), present.Bytes(totalB))
	if secs := took.Seconds(); secs > 0.5 && bytes > 0 {
		rate := float64(bytes) / secs
		line += fmt.Sprintf(" · %s/s", present.Bytes(int64(rate)))
		if left := time.Duration(float64(totalB-bytes) / rate * float64(time.Second)); left > 0 {
			line += " · " + left.Round(time.Second).String() + " left"
		}
	}
	return line
}
