package store

import "errors"

// TurnID names an agent turn: "3", "fix-login", or "3.2", the
// continuation a capture naming a rewound 3 goes to. Operations have ids
// of their own (OpID). ParseTurnID is where a turn id given to the store
// is checked; the store checks again whatever it is handed, since a
// TurnID can be converted from any string.
type TurnID string

// maxTurnID is the longest turn id, in bytes: its file name (hex-encoded
// when it holds other characters, with room for a ".N" continuation)
// must fit the file system's 255.
const maxTurnID = 100

// ErrBadTurnID means a turn id is empty, too long to name a file, or
// named like an operation (op-N).
var ErrBadTurnID = errors.New("store: not a usable turn id")

// ParseTurnID checks s as a turn id: not empty, at most 100 bytes, and
// not an operation's (op-N). It refuses what no turn file could be named
// after with ErrBadTurnID.
func ParseTurnID(s string) (TurnID, error) {
	switch {
	case s == "":
		return "", errf("an empty turn id: %w", ErrBadTurnID)
	case len(s) > maxTurnID:
		return "", errf("turn id %q… is %d bytes long; at most %d: %w", s[:20], len(s), maxTurnID, ErrBadTurnID)
	}
	if _, err := ParseOpID(s); err == nil {
		return "", errf("turn id %q names an operation (op-N is theirs): %w", s, ErrBadTurnID)
	}
	return TurnID(s), nil
}

// check is ParseTurnID for an id handed to the store as a TurnID.
func (id TurnID) check() error {
	_, err := ParseTurnID(string(id))
	return err
}

// String returns the id as records and output write it.
func (id TurnID) String() string { return string(id) }
