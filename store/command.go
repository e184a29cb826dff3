package store

// BeginCommand is an agent session's shell step before cmd runs, in one
// call: it finds the open turn of meta.Session, opening one labelled label
// when the session has none (as OpenTurn does), and sweeps for it as
// SweepBefore does. sweep.lock is held from the look-up to the end of the
// sweep, so no other sweep comes between a turn's opening and its first
// sweep. meta.Session must be named.
func (s *Store) BeginCommand(meta TurnMeta, label, cmd string) (*SweepResult, error) {
	return s.command(meta, label, cmd, false)
}

// EndCommand is the shell step after cmd ran, in one call: the session's
// open turn (opened as BeginCommand does, when the step before never
// came) is swept as SweepAfter does, under the same one sweep.lock.
func (s *Store) EndCommand(meta TurnMeta, label, cmd string) (*SweepResult, error) {
	return s.command(meta, label, cmd, true)
}

func (s *Store) command(meta TurnMeta, label, cmd string, after bool) (*SweepResult, error) {
	if meta.Session == "" {
		return nil, errf("shell step of %q: no session named", cmd)
	}
	sl, err := s.sweepLock()
	if err != nil {
		return nil, err
	}
	defer sl.unlock()
	// OpenTurn takes hook.lock and the store's lock inside sweep.lock:
	// nothing takes sweep.lock while holding either.
	turn, err := s.OpenTurn(meta.Session, TurnMeta{Label: label, Source: meta.Source})
	if err != nil {
		return nil, err
	}
	res, err := s.sweepLocked(string(turn), meta, cmd, after, nil)
	if err != nil {
		return res, err
	}
	return res, s.followed(meta, turn, res.Turn)
}
