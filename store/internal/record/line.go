// Package record is the codec of the store's record files: a turn's
// file, the operations log and an operation's steps are lines of
// "<crc32c hex> <json>\n", one record each (the store's package doc,
// "# Records", gives every field). A record's kind is its "r": a turn
// header, a pre or post image of one path, an operation, its completion,
// or one step of an operation. Line holds any of them: the fields each
// kind carries are grouped in a type of its own (Turn, File, Op, Done),
// embedded in Line in the order the fields are written, so a record is
// written byte for byte as it always was.
//
// It also reads the seed format's index.json (DecodeSeed), the other file
// that a store's fast JSON decoder reads.
//
// Nothing here touches a file: the store reads and writes the bytes.
package record

// Line is one record of a turn file, the operations log or a steps file.
// Field names are short because a big turn holds thousands of them. A
// field's "in" tag lists the kinds of record ("r") that carry it, as the
// store's package doc describes them (its TestDocRecordKeys keeps the two
// in step).
type Line struct {
	R string `json:"r" in:"turn,pre,post,cmd,op,done,step"` // turn, pre, post, cmd; op, done; step

	Turn
	File
	Op
	Done

	At int64 `json:"at,omitempty" in:"turn,pre,post,cmd,op,done"` // Unix nanoseconds, for display
	// N orders records: taken under the lock from the store's clock file,
	// greater than every N before it even when the wall clock steps back.
	// Records without one (older stores) are ordered by At.
	N int64 `json:"n,omitempty" in:"turn,pre,post,cmd,op"`
}

// Turn is the header of a turn's file ("turn"); an operation ("op")
// carries its version and id, and its completion ("done") the id.
type Turn struct {
	V      int     `json:"v,omitempty" in:"turn,op"`
	ID     string  `json:"id,omitempty" in:"turn,op,done"`
	Label  string  `json:"label,omitempty" in:"turn"`
	Source *Source `json:"source,omitempty" in:"turn"`
	Head   string  `json:"head,omitempty" in:"turn"`
	Ref    string  `json:"ref,omitempty" in:"turn"`   // the branch HEAD named ("refs/heads/main"; "" detached)
	Index  *Image  `json:"index,omitempty" in:"turn"` // git's index file as the turn began
	// End, on a later header carrying git's state, says the turn ended
	// there (its agent's end-of-turn event, ckpt watch closing it).
	End bool `json:"end,omitempty" in:"turn"`
}

// File is what a record about one path holds: a pre or post image in a
// turn ("pre", "post"), or one path of an operation ("step").
type File struct {
	Path string   `json:"p,omitempty" in:"pre,post,step"`
	Img  *Image   `json:"i,omitempty" in:"pre,post,step"`
	Want *Image   `json:"w,omitempty" in:"step"`    // step: what the operation writes
	Back *Image   `json:"back,omitempty" in:"step"` // step: what an undo puts back, when not Img
	Dirs []string `json:"dirs,omitempty" in:"pre,step"`
	Do   Action   `json:"do,omitempty" in:"step"`
	Why  string   `json:"why,omitempty" in:"step"`
	Hand bool     `json:"hand,omitempty" in:"step"`
	Cmd  string   `json:"cmd,omitempty" in:"pre,post,cmd"` // pre, post: the shell command that changed the path (its start, with CmdN); cmd: the whole command
	// CmdN, in a pre or post whose Cmd is only the start of a long
	// command, is the "n" of the turn's cmd record holding all of it: a
	// command is kept once per sweep, not once per path it changed.
	CmdN int64 `json:"cmdn,omitempty" in:"pre,post"`
	// Shared names the other turns a sweep gave the same change: no
	// single command owned it (two sessions' commands were running).
	Shared []string `json:"shared,omitempty" in:"pre,post"`
	// Seen, in a pre record, is when its image was observed, in Unix
	// nanoseconds of the clock sweeps use (the baseline's): a capture's
	// just before it read the file, a shell sweep's when its baseline was
	// taken, which may be before other turns' records. A pre without it
	// (an older ckpt's) counts as observed when its turn began.
	Seen int64 `json:"seen,omitempty" in:"pre"`
}

// Op is an operation (a rewind, undo or redo) as ops.log begins it ("op").
type Op struct {
	Kind   Kind     `json:"kind,omitempty" in:"op"`
	Target string   `json:"target,omitempty" in:"op"`
	Turns  []string `json:"turns,omitempty" in:"op"`
	Steps  int      `json:"steps,omitempty" in:"op"`
	Retry  string   `json:"retry,omitempty" in:"op"` // the operation whose failed paths it tries again
	Sess   string   `json:"sess,omitempty" in:"op"`  // the agent session a revert took out
	// Except lists the paths a revert left as they were at the user's
	// request (--except): their change is still in.
	Except []string `json:"except,omitempty" in:"op"`
	Rmdirs []string `json:"rmdirs,omitempty" in:"op"` // folders removed if left empty
	Had    []string `json:"had,omitempty" in:"op"`    // of those, the ones there before
	Mkdirs []string `json:"mkdirs,omitempty" in:"op"` // folders made (an undo's give-back)
	// HadModes and MkdirModes run parallel to Had and Mkdirs: the
	// folders' permission bits.
	HadModes   []uint32 `json:"hadm,omitempty" in:"op"`
	MkdirModes []uint32 `json:"mkdirm,omitempty" in:"op"`
	// IndexWas and IndexSet are git's index file before the operation and
	// what the operation wrote there, when it put the index back.
	IndexWas *Image `json:"index_was,omitempty" in:"op"`
	IndexSet *Image `json:"index_set,omitempty" in:"op"`
}

// Done is an operation's completion in ops.log ("done").
type Done struct {
	Recovered bool     `json:"recovered,omitempty" in:"done"`
	Abandoned bool     `json:"abandoned,omitempty" in:"done"` // never carried out: changes nothing
	Failed    []string `json:"failed,omitempty" in:"done"`    // paths whose step failed (readers before format 1.1: while running)
	// Fails gives each failed path (planned to fail or failed while
	// running) with its reason; None says every step failed, so the
	// operation changed nothing and stands for nothing.
	Fails []Failure `json:"fails,omitempty" in:"done"`
	None  bool      `json:"none,omitempty" in:"done"`
}

// Order is r's place in the store's order of commits.
func (r *Line) Order() int64 {
	if r.N != 0 {
		return r.N
	}
	return r.At
}
