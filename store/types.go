package store

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ckpt-dev/ckpt/store/internal/format"
	"github.com/ckpt-dev/ckpt/store/internal/record"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// Sentinel errors. Callers test them with errors.Is; the wrapped message
// names the turn, operation or file involved.
var (
	// ErrNoStore means the root holds no .osfoundry/checkpoints folder and
	// the store was opened without Options.Create.
	ErrNoStore = errors.New("store: no checkpoint store here")
	// ErrUnknownTurn means no turn or operation has the id asked for.
	ErrUnknownTurn = errors.New("store: no such turn")
	// ErrRewound means a rewind was asked for a turn that is already rewound.
	ErrRewound = errors.New("store: turn is already rewound")
	// ErrNothingToUndo means no rewind is left to undo.
	ErrNothingToUndo = errors.New("store: nothing to undo")
	// ErrNothingToRedo means no undone rewind is left to redo.
	ErrNothingToRedo = errors.New("store: nothing to redo")
	// ErrNewerTurn means an undo or redo would overwrite what a newer active
	// turn wrote; pass force to do it anyway.
	ErrNewerTurn = errors.New("store: a newer turn wrote these paths")
	// ErrOutsideRoot means a path lies outside the project root.
	ErrOutsideRoot = errors.New("store: path is outside the root")
	// ErrCorrupt means a record or blob failed its check.
	ErrCorrupt = format.ErrCorrupt
	// ErrLinkInStore means a file or folder of the store is a symbolic
	// link. ckpt never follows one: a cloned repository can ship
	// .osfoundry/checkpoints/lock pointing anywhere.
	ErrLinkInStore = storefs.ErrLinkInStore
	// ErrPlanChanged means Apply was handed a plan that no longer holds: a
	// turn arrived, an operation ran or a file changed since it was made.
	// Nothing was changed; the wrapped message says what moved.
	ErrPlanChanged = errors.New("store: the plan is out of date")
)

// PathError is one path of a batch (Capture, Seal, Remove) that could not
// be handled; Path is as the caller gave it, or root-relative once known.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *PathError) Unwrap() error { return e.Err }

// BatchError is what Capture, Seal and Remove return when some of their
// paths could not be handled: each path stands alone, so every path not
// listed here was handled.
type BatchError struct {
	Op    string // "capture", "seal", "rm"
	Paths []PathError
}

func (e *BatchError) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	for i := range e.Paths {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(e.Paths[i].Error())
	}
	return b.String()
}

// Unwrap gives each path's error, so errors.Is sees through a batch.
func (e *BatchError) Unwrap() []error {
	out := make([]error, len(e.Paths))
	for i := range e.Paths {
		out[i] = &e.Paths[i]
	}
	return out
}

// batchError is nil for an empty list.
func batchError(op string, bad []PathError) error {
	if len(bad) == 0 {
		return nil
	}
	return &BatchError{Op: op, Paths: bad}
}

// The types records hold live with the record codec; callers know them
// by these names.
type (
	// Kind says what an entry of the log is.
	Kind = record.Kind
	// ImageKind says what a path held at some moment.
	ImageKind = record.ImageKind
	// Image is what one path held at one moment: before the agent's write
	// (a pre-image), after it (a post-image), or before an operation.
	Image = record.Image
	// Source names where an agent turn came from, as the agent itself
	// knows it.
	Source = record.Source
	// Action is what an operation will do to one path.
	Action = record.Action
	// Failure is a path an operation could not put back.
	Failure = record.Failure
)

// Entry kinds.
const (
	KindAgent  = record.KindAgent
	KindRewind = record.KindRewind
	KindUndo   = record.KindUndo
	KindRedo   = record.KindRedo
)

// Image kinds. The first three are the seed format's "pre" kinds.
const (
	ImageContent = record.ImageContent // a regular file; bytes in a blob
	ImageAbsent  = record.ImageAbsent  // no file
	ImageSkipped = record.ImageSkipped // a file too large to keep (Reason says why)
	ImageLink    = record.ImageLink    // a symbolic link (Link holds its target)
	ImageDir     = record.ImageDir     // a folder (Mode holds its permission bits)
	ImageFifo    = record.ImageFifo    // a named pipe a command made or removed
	ImageSocket  = record.ImageSocket  // a socket a command made or removed
	ImageDevice  = record.ImageDevice  // a device node a command made or removed
)

// Plan actions.
const (
	ActRestore = record.ActRestore // write bytes (or a link) back
	ActDelete  = record.ActDelete  // remove the file
	ActKeep    = record.ActKeep    // already as wanted; nothing written
	ActFail    = record.ActFail    // cannot be restored (Reason says why)
	ActLeave   = record.ActLeave   // left as it is now, as asked (Plan.Keep)
)

// State is an entry's standing.
type State string

// Entry states.
const (
	StateActive  State = "active"  // a turn whose changes stand, or an operation in effect
	StateRewound State = "rewound" // a turn undone by a rewind still in effect
	StateUndone  State = "undone"  // a rewind later undone
	StateFailed  State = "failed"  // an operation every step of which failed: it changed nothing
)

// Entry is one line of the log: an agent turn or an operation.
type Entry struct {
	ID    string    // "3", "fix-login.2", "op-4"
	Kind  Kind      //
	Label string    // a turn's label (raw: escape before showing)
	At    time.Time // when its first record was committed
	State State     //
	Files int       // paths the turn captured, or the operation touched
	// HandEdited counts the entry's paths changed since the agent wrote them
	// (see Status). It is -1 when the log was read without disk status.
	HandEdited int
	Source     *Source // agent turns fed by hooks
	Head       string  // git HEAD commit when the turn began, if any
	// RanGit is set on an agent turn when git's state (HEAD, its branch,
	// the index) changed within the turn: from its start to its end, or
	// to now for the newest turn while it has not ended. What git did
	// between turns is no turn's.
	RanGit bool
	Target string   // operations: the turn rewound to, or the op undone/redone
	Turns  []string // operations: the turns rewound (or brought back)
	// Retry names the operation whose failed paths this one tried again.
	Retry string
	// Failed lists an operation's paths it could not put back that are
	// still failed (not tried again since, nor made moot). Running the
	// same command again (rewinding a turn it rewound, undo, redo)
	// retries them.
	Failed []Failure
}

// PathFailure is a path an operation could not put back and that is still
// failed: no operation has since put it as wanted, and no newer turn has
// captured it.
type PathFailure struct {
	Path   string
	Reason string
	Op     string // the operation that failed it
	Kind   Kind   // that operation's kind
}

// Status is how one path of a turn stands against the disk now.
type Status string

// File statuses, in the order CONTRACT.md's show --json takes the first match.
const (
	StatusSkipped     Status = "skipped"
	StatusMissingBlob Status = "missing_blob" // also a blob that fails its hash
	StatusFailed      Status = "failed"       // an operation could not put it back (Reason says why); retried by running it again
	StatusHandEdited  Status = "hand_edited"
	StatusCreated     Status = "created"
	StatusDeleted     Status = "deleted"
	StatusModified    Status = "modified"
	StatusUnchanged   Status = "unchanged"
	StatusUnknown     Status = ""
)

// File is one path of a turn.
type File struct {
	Path string // relative to the root, '/' separated
	Pre  Image  // before the agent's first write in this turn
	// Post is what the agent left (from seal), nil when never sealed.
	Post *Image
	// Status against the disk now; StatusUnknown if not computed.
	Status Status
	// Reason explains skipped and missing_blob statuses.
	Reason string
	// Disk is what the path holds now (filled with Status).
	Disk Image
	// HandEdited is set when the path was changed since the agent wrote it
	// (see CONTRACT.md, "Changed outside ckpt"), even where another status
	// comes first.
	HandEdited bool
	// Writing is set when an active turn has captured the path and not yet
	// sealed it: the agent is (or was, if it died) writing it, and it is
	// never HandEdited meanwhile. Filled with Status.
	Writing bool
	// Shell is the shell command whose sweep recorded the path (raw:
	// escape before showing); empty for a file tool's write.
	Shell string
	// Shared lists the other turns that hold the same change: a sweep
	// ran while commands of several sessions were running, so no single
	// command owned it, and every one of them got it. A revert of one of
	// these turns treats the path as a conflict.
	Shared []string
}

// TurnMeta is what a capture knows of its turn beyond the id.
type TurnMeta struct {
	Label  string
	Source *Source
	// Session, when set, is the agent session key whose open turn this
	// is (see OpenTurn): a call that moves on to a continuation (T.2)
	// records it as the session's open turn too. It is not written in
	// any record.
	Session string
}

// Step is one path of a plan.
type Step struct {
	Path       string
	Do         Action
	Reason     string // for ActFail
	HandEdited bool   // the disk differs from what the agent (or last op) left
	Now        Image  // what the path holds now (kept before anything changes)
	Want       Image  // what it will hold
	// Conflicts, in a revert, lists the lines of Now that both the turn
	// and a later change touched (empty, not nil, for a file merged
	// whole). The step fails, leaving the file as it is, unless the plan
	// writes markers (then Want holds them).
	Conflicts []LineRange
	// Merged, in a revert, says later changes to the file are kept beside
	// the turn's taken out.
	Merged bool
	// KeptHunks counts the hunks of the file kept as they are now, the
	// rest of it written as the operation would (Plan.KeepHunks).
	KeptHunks int
	// Marked, for a revert's text file in conflict left as it is, is the
	// file as markers would write it (Store.ReadImage gives its bytes),
	// for a preview to show where the conflict is.
	Marked Image
}

// Plan is what a rewind, undo or redo will do. Plans are made without the
// lock; Apply makes the plan again under it and goes ahead only when the
// two are the same plan (the same ID).
//
// For a preview, each step carries Now (what the path holds) and Want
// (what it will hold): Store.ReadDisk gives the bytes now and
// Store.ReadImage(st.Want) the bytes after. To leave some paths as they
// are, make the plan again with PlanRewind and the paths to keep; a retry (Retry set) is
// shown and applied like any plan.
type Plan struct {
	// ID names this plan: a digest of its kind, target, turns, force,
	// kept paths, retry, and per path the action, what it holds now and
	// what it will hold. Two plans with the same ID do the same thing to
	// the same folder. It is "plan" in the JSON of rewind, undo and redo.
	ID       string
	Kind     Kind      // rewind, undo or redo
	Target   string    // the turn rewound to, or the op undone/redone
	Turns    []string  // turns that will be rewound (rewind, redo) or brought back (undo)
	Steps    []Step    // sorted by path
	Warnings []Warning // e.g. a capture in flight (git's changes are in Git)
	Force    bool
	// GitIndex asks a rewind to put git's index file back as it was
	// before the turn (--git-index); Index is that write, nil when the
	// index already is so. An undo or redo of an operation that wrote the
	// index writes it back on its own (Index set, GitIndex not).
	GitIndex bool
	Index    *IndexStep
	// Git is what the turns a rewind undoes did to git (HEAD moved,
	// commits, the index changed); nil when nothing. Refs and objects are
	// never changed by ckpt.
	Git *GitChange
	// IndexDrops, in a revert, lists the staged paths git's index changed
	// after the reverted turns ended (later turns, or a person): putting
	// the index back as it was before the turns drops them. Nil when
	// nothing was staged after them or it could not be read.
	IndexDrops []string
	// HeadSince, in a revert, says HEAD moved after the reverted turns
	// ended: no command puts back only what they did to it.
	HeadSince bool
	// Keep lists the paths left as they are now (steps ActLeave), sorted.
	Keep []string
	// KeepHunks lists, by path, the hunks of files kept as they are now
	// while the rest of each file is rewound or reverted (the steps' Want
	// holds the result; their KeptHunks count them).
	KeepHunks []HunkKeep
	// Retry names the operation whose failed paths this plan tries again
	// ("" for a whole rewind, undo or redo). A rewind's retry is a rewind of
	// its own, undone on its own; an undo's or redo's finishes it.
	Retry string
	// Session is the agent session a revert takes out (Target is then
	// empty); Markers says a revert writes conflicts between markers.
	Session string
	Markers bool

	// merged holds the bytes of a revert's merges, which are not in the
	// store until Apply keeps them.
	merged map[BlobID][]byte

	// asIf gives, per path, what an undo of this redo puts back (the
	// step's Back) when the path holds what the redo writes or nothing:
	// the bytes an undo that failed the path was to bring back.
	asIf map[string]Image
}

// WarningKind is what a Warning is about.
type WarningKind string

// The warnings a plan can carry.
const (
	// WarnHeadMoved: git HEAD is no longer the commit the turn began on
	// (From), but To. Plans no longer carry it: Plan.Git says what the
	// turns did to git, the branch and the index too.
	WarnHeadMoved WarningKind = "head-moved"
	// WarnInFlight: Turn captured Path and has not sealed it, recently:
	// the agent may be writing it right now.
	WarnInFlight WarningKind = "in-flight"
	// WarnGitIndex: an undo or redo cannot give git's index back (the
	// repository is gone, say); Path holds the reason.
	WarnGitIndex WarningKind = "git-index"
)

// Warning is something to know before applying a plan. The store says
// what it found; the CLI and the UI put it into words (present.Warning).
type Warning struct {
	Kind     WarningKind
	Turn     string // the turn it concerns
	Path     string // WarnInFlight: the path captured and not sealed
	From, To string // WarnHeadMoved: the commit then and now, in full
}

// Result is what an applied (or dry-run) operation did.
type Result struct {
	Op         string    `json:"op"`
	Restored   []string  `json:"restored"`
	Deleted    []string  `json:"deleted"`
	Kept       []string  `json:"kept"` // left as they are, as asked
	Failed     []Failure `json:"failed"`
	HandEdited []string  `json:"hand_edited"`
	Plan       string    `json:"plan"` // the plan's ID
	Applied    bool      `json:"applied"`
	// Conflicts and Merged are a revert's: the paths in conflict (left
	// as they are, or written with markers) and those whose later changes
	// were kept. Nil for other operations.
	Conflicts []Conflict `json:"conflicts,omitempty"`
	Merged    []string   `json:"merged,omitempty"`
}

// FindingKind is what Verify found wrong with a file.
type FindingKind string

// The findings of Verify. Each names the fields of Finding it sets
// besides File; the CLI puts them into words.
const (
	FindUnreadable    FindingKind = "unreadable"     // Detail: why
	FindDamagedRecord FindingKind = "damaged-record" // Line
	FindTornRecord    FindingKind = "torn-record"    // Bytes after the last whole record
	FindNoTurnRecord  FindingKind = "no-turn-record" // a turn file that does not start with one
	FindNewerFormat   FindingKind = "newer-format"   // Detail: the version written and read
	FindNewerOp       FindingKind = "newer-op"       // ID, Detail: an operation written by a newer ckpt
	FindBadPath       FindingKind = "bad-path"       // Record, Path, Detail: why the path is refused
	FindBadSeed       FindingKind = "bad-seed"       // Detail: why index.json cannot be read
	FindSeedBlobName  FindingKind = "seed-blob-name" // ID (the turn), Path (the name): not a blob's name
	FindNotBlob       FindingKind = "not-a-blob"     // a file in blobs/ that is not one
	FindDamagedBlob   FindingKind = "damaged-blob"   // Detail, Named: a loose blob that fails its check
	FindLostPack      FindingKind = "lost-pack"      // Detail: a pack that cannot be read
	FindBadPackIndex  FindingKind = "bad-pack-index" // Detail: the lookup index cannot be read
	FindNotPack       FindingKind = "not-a-pack"     // a file in packs/ that is not one
	FindUnindexed     FindingKind = "unindexed-blob" // Blob, Pack: the lookup index misses a packed blob
	FindBlobSize      FindingKind = "blob-size"      // Blob, Size (the pack's), Want (the records'), Named
	FindLostBlob      FindingKind = "lost-blob"      // Blob, Detail, Named: a packed blob that fails its check
	FindMissingBlob   FindingKind = "missing-blob"   // Named: a blob records name that is nowhere
	// FindDamagedConversation: Detail, a conversation file (for showing
	// only) that does not read; the turn's records are untouched.
	FindDamagedConversation FindingKind = "damaged-conversation"
	// FindNotConversation: a file in conversations/ whose name is no
	// turn's conversation file.
	FindNotConversation FindingKind = "not-a-conversation"
)

// Finding is one damaged record or blob found by Verify: what is wrong
// (Kind) with which file, and what the kind says of it. The store says
// what it found; the CLI puts it into words.
type Finding struct {
	Kind FindingKind
	File string // path of the damaged file, relative to the store folder
	// Detail is the reason an error gave (the file system's, a format
	// check's), for the kinds that carry one.
	Detail string
	Line   int    // FindDamagedRecord: the line, from 1
	Bytes  int64  // FindTornRecord: the bytes after the last whole record
	ID     string // FindNewerOp: the operation; FindSeedBlobName: the turn
	Record string // FindBadPath: the record's kind ("pre", "post")
	Path   string // FindBadPath: the path refused; FindSeedBlobName: the blob name
	Blob   BlobID // FindUnindexed, FindBlobSize, FindLostBlob
	Pack   string // FindUnindexed: the pack's file name
	// Size and Want are a packed blob's size by the pack's index and by
	// the records naming it (FindBlobSize).
	Size, Want int64
	// Named lists the files whose records name the blob, sorted.
	Named []string
}

// PruneOptions chooses the turns Prune drops. Zero values keep everything.
type PruneOptions struct {
	Keep      int           // keep the newest N turns
	OlderThan time.Duration // drop turns older than this
	DryRun    bool
}

// PruneResult says what Prune dropped (or would).
type PruneResult struct {
	Turns []string
	Blobs int
	// Packed counts the loose blobs kept as they are that went into a
	// pack, compressed.
	Packed     int
	BytesFreed int64
}

// NotTouchedError is a path asked to be left as it is (RewindOptions.Keep,
// RevertOptions.Keep) that the operation does not touch: nothing is
// planned, and the caller says how it was asked (--except, a key).
type NotTouchedError struct {
	Path string
	Kind Kind
}

func (e *NotTouchedError) Error() string {
	return fmt.Sprintf("%s: the %s does not touch it, so there is nothing to leave as it is", e.Path, e.Kind)
}
