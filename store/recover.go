package store

import (
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/record"
)

// recover finishes an operation that a killed process left logged but not
// done. The steps and every byte they need were made durable before the
// operation was logged, so it can always be carried forward; the folder
// ends wholly as after the operation.
func (s *Store) recover() error {
	s.recoverUnread()
	ops, err := s.readOps()
	if err != nil || allDone(ops) && !s.hasIndexLockNote() && !s.hasShutNote() {
		return err
	}
	// Another process may be applying it right now: the locks wait for it
	// (and, as for any operation, for captures in flight).
	unlock, err := s.lockAll()
	if err != nil {
		return err
	}
	defer unlock()
	return s.recoverLocked()
}

func allDone(ops []*opRec) bool {
	for _, o := range ops {
		if !o.done {
			return false
		}
	}
	return true
}

// recoverLocked finishes every operation logged but not done, then gives
// back the modes of folders an operation that was never logged opened
// (recoverShut). Caller holds both locks.
func (s *Store) recoverLocked() error {
	if err := s.recoverOps(); err != nil {
		return err
	}
	if s.hasShutNote() {
		return s.recoverShut()
	}
	return nil
}

// recoverOps finishes every operation logged but not done. One with a
// finished operation after it was overtaken (a store that never recovered
// it): carrying it forward now would write over newer work, so it is
// marked abandoned, and the one after it stands. Caller holds both locks.
func (s *Store) recoverOps() error {
	if s.hasIndexLockNote() {
		// git's index first: an operation logged holding index.lock
		// renames it over the index before its files are carried on.
		s.mu.Lock()
		err := s.recoverIndexLock()
		s.mu.Unlock()
		if err != nil {
			return err
		}
	}
	s.mu.Lock()
	ops, err := s.readOps()
	s.mu.Unlock()
	if err != nil || allDone(ops) {
		return err
	}
	if err := s.cutTorn("ops.log"); err != nil {
		return err
	}
	for i, o := range ops {
		if o.done {
			continue
		}
		later := false
		for _, x := range ops[i+1:] {
			later = later || x.done
		}
		s.mu.Lock()
		recs, err := s.steps(o.id)
		s.mu.Unlock()
		if later || err != nil {
			why := "a later operation overtook it"
			if err != nil {
				why = "its steps cannot be read: " + err.Error()
			}
			if err := s.finish(&record.Line{R: "done", Turn: record.Turn{ID: o.id}, Done: record.Done{Recovered: true, Abandoned: true}}); err != nil {
				return errf("mark interrupted %s %s abandoned: %w", o.kind, o.id, err)
			}
			msg := fmt.Sprintf("%s %s was interrupted and is abandoned (%s); the paths it had already changed stay as they are", o.kind, o.id, why)
			s.LogError("%s", msg)
			if s.notify != nil {
				s.notify(msg)
			}
			continue
		}
		res, none := outcome(recs, s.execute(recs, nil, o.rmdirs, o.mkdirs, o.mkdirMods, false, &failpoint{}, nil))
		if err := s.finish(doneRecord(o.id, res, none, true)); err != nil {
			return errf("finish interrupted %s %s: %w", o.kind, o.id, err)
		}
		msg := finishedNote(o.kind, o.id, res.Failed)
		s.LogError("%s", msg)
		if s.notify != nil {
			s.notify(msg)
		}
	}
	return nil
}

// finishedNote says that an interrupted operation was finished, and which
// paths it could not put back.
func finishedNote(kind Kind, id string, failed []Failure) string {
	msg := fmt.Sprintf("finished %s %s, which was interrupted: the folder is now as after it", kind, id)
	if len(failed) == 0 {
		return msg
	}
	var each []string
	for _, f := range failed {
		each = append(each, f.Path+": "+f.Reason)
	}
	what := fmt.Sprintf("%d paths", len(failed))
	if len(failed) == 1 {
		what = "1 path"
	}
	return msg + fmt.Sprintf(" (%s could not be restored: %s)", what, strings.Join(each, "; "))
}
