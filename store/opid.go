package store

import (
	"fmt"
	"strconv"
	"strings"
)

// OpID names an operation (a rewind, undo or redo). Operations have their
// own namespace, "op-1", "op-2", …, apart from turn ids; the number grows
// with each operation logged.
type OpID uint64

// ParseOpID parses "op-N" (N ≥ 1). It is the one place an operation's name
// is checked.
func ParseOpID(s string) (OpID, error) {
	num, ok := strings.CutPrefix(s, "op-")
	if !ok || num == "" || num[0] == '0' || num[0] == '+' {
		return 0, fmt.Errorf("store: %q is not an operation id (op-N)", s)
	}
	n, err := strconv.ParseUint(num, 10, 63)
	if err != nil {
		return 0, fmt.Errorf("store: %q is not an operation id (op-N)", s)
	}
	return OpID(n), nil
}

// String returns the id as written in records and output: "op-N".
func (id OpID) String() string { return "op-" + strconv.FormatUint(uint64(id), 10) }

// Next returns the id the operation after id gets.
func (id OpID) Next() OpID { return id + 1 }
