// Package store keeps what each file held before an AI coding agent wrote
// it, and rewinds a folder to any turn, exactly, with every rewind undoable.
//
// It knows nothing of terminals; the command line, the terminal UI and the
// agent hooks all stand on it.
//
// # Layout
//
// A project's store lives in <root>/.osfoundry/checkpoints (folders 0700,
// files 0600, since it holds copies of secrets such as .env), beside
// <root>/.osfoundry/.gitignore holding "*" so git never sees it:
//
//	FORMAT            one line naming the format ckpt writes
//	lock              flock: every writer of records holds it exclusively
//	blobs.lock        flock: held shared by captures, exclusively by prune
//	hook.lock         flock: hooks hold it while they open a session's turn
//	index.json        a seed-format index (read, never written)
//	blobs/<hex>.zst   kept bytes, a zstd frame, named by the SHA-256 of
//	                  the raw bytes; blobs/<hex> (raw) is the seed format's
//	packs/<id>.pack   many blobs in one file, with an index (see Packs)
//	packs.idx         one lookup index across packs (see Packs)
//	repack.lock       flock: one repack at a time
//	retained          its mtime: when the last retention pass ended
//	maintain.lock     flock: held by the one background pass
//	purging           the journal of a purge under way (see Purge)
//	turns/<id>.log    one append-only record file per agent turn
//	turns/<id>.idx    where in it each path's capture and seals are (a
//	                  cache; see Appending)
//	ops.log           append-only log of rewinds, undos and redos
//	ops/op-N.steps    each operation's steps: before and after per path
//	shut-folders      JSON: the folders an operation is opening, shut to
//	                  their owner, with their modes (see Durability)
//	shut-files        JSON: the files ckpt opens to read, their mode
//	                  keeping their owner out, with their modes and inodes
//	shut-files.lock   flock: held by whoever writes shut-files
//	seq               the last short turn id handed out
//	clock             the last order number ("n") handed out
//	clock.log         for each number handed out, the turn files its writer
//	                  changed (see Summary)
//	sessions/         <key>.turns: the turns an agent session opened (hooks)
//	errors.log        bounded log of errors the hooks could not show
//	statcache.json    size, mtime, ctime, inode and hash per path
//	summary           every turn file's parse, a cache (see Summary)
//	baseline          what the last shell sweep saw (see Shell sweeps)
//	baseline.log      what sweeps changed in it since, appended
//	sweep.lock        flock: one sweep at a time
//	open.json         the shell commands running now (see Shell sweeps)
//	left.json         paths sweeps left to running commands (see Shell sweeps)
//	edits.log         file tools' writes made while a command of another
//	                  turn runs (see Shell sweeps)
//	git-index         JSON: git's index file's stat when ckpt last kept a
//	                  copy, the copy's image, and "staged", a digest of
//	                  what it stages (gitindex.Staged)
//	git-index-seen    the same for the index as last looked at, not kept
//	                  (its image's sha256 zero when only digested)
//	git-index-staged  "<blob> <digest>" lines: what kept copies of the
//	                  index stage (a cache, bounded)
//	git-last, git-before, git-before-watch  JSON notes of git's state as
//	                  last recorded in a turn, and for a turn to come
//	conversations/<id>.json  what a turn's agent was asked and said, from
//	                  its plugin's events (see Conversations)
//
// Turn ids are at most 100 bytes. Those made only of letters, digits, '.',
// '-' and '_' name their file directly; any other id is hex-encoded after
// a '%'.
//
// # Records
//
// Every record file is a sequence of lines, each
//
//	<crc32c of the JSON, 8 hex digits> <one JSON object>\n
//
// and the JSON's "r" field says what the record is. A turn file starts with
// {"r":"turn","v":2,"id","label","at","n","source":{"agent","session",
// "prompt","transcript"},"head","ref","index","end"} (source is where the turn
// came from, as the agent's hook knew it; "transcript", optional within
// version 2 and passed over by readers that predate it, is the absolute
// path of the file where the agent keeps the session's conversation,
// which ckpt reads and never writes; head is the git commit at the time
// and ref the branch HEAD named, "" when detached, to say when the branch
// moved or commits were made since; index is an image of git's index file
// as the turn began, its bytes kept as a blob only when the file's stat
// changed since the last copy, else the last copy's; a later turn record
// may relabel the turn, and one carrying "head", "ref" and "index" says
// where git stood at that point of the turn — written after a shell
// command that moved git, and, with "end": true, as the turn ended, its
// index kept as at the turn's start), then holds {"r":"pre","p":path,"i":image,"dirs":[…],"cmd",
// "cmdn","shared","seen","at","n"} — what path held before the agent's first write in the turn
// (later pres of the same path are ignored: the first capture wins; dirs
// are folders the file's absence implied and a rewind removes again if
// left empty; seen, below) — and {"r":"post","p","i","cmd","cmdn","shared","at","n"}: what the agent
// left (the newest seal counts). An image is
// {"kind":"content"|"absent"|"skipped"|"symlink"|"dir","sha256","bytes","mode",
// "link","reason","kept"} ("mode", the permission bits, is left out when
// unknown, as in seed stores, and is 0 for a mode of 000; a reader that
// predates that reads 0 as unknown, as it read every 000 before); "cmd", in a pre or post recorded by a shell
// sweep, is the command that changed the path. A command longer than
// 1 KiB is kept once per sweep: the sweep's records start with
// {"r":"cmd","cmd","at","n"}, the whole command, and its pre and post
// records hold in "cmd" only the command's first 200 bytes and "…", and
// in "cmdn" the "n" of that cmd record (a reader that predates cmd
// records, within version 3, passes them over and shows the start). A sweep records a path
// with its kind: "dir" is a folder (its mode only), recorded where a
// command turned a file or link into a folder or back, or changed a
// folder's mode. A rewind wanting a folder removes the file or link
// standing there (kept first) and makes the folder before the files in
// it; it never reads or writes a path through a link standing where one
// of its folders was (the path is gone; the link leads to another). Content under the size
// limit is kept as a blob, and a skipped file still carries its hash. Paths are relative to the root
// with '/' separators. "at" is Unix nanoseconds, for display only. "n"
// orders records: taken under the lock from the clock file, it is greater
// than every "n" handed out before, and equal to "at" while the wall clock
// moves forward, so turns and operations keep the order in which they
// were committed even when the clock steps back. Records without "n"
// (written before it existed) are ordered by "at".
//
// "seen", in a pre, says when its image was observed, in Unix
// nanoseconds of the clock the sweeps use (the baseline's "at",
// edits.log's): a capture's is just before it read the file; a shell
// sweep's is when the baseline it compared with was taken, or, for a
// path a sweep left to running commands, when the baseline it was first
// found missing from was (left.json's "bases"), and for a path an
// operation wrote since the baseline, when the sweep found it. With two
// sessions a sweep in the older turn can record what its baseline held
// after the newer turn's capture, so a rewind over several turns takes,
// per path, the pre-image seen first (of equals, the older turn's). A
// pre without "seen" (written by a ckpt that predates it, which passes
// the field over) counts as seen when its turn began ("at", or an older
// turn's, if later): a store of such records keeps turn order, and a
// turn of it among turns that say orders by those times.
//
// Names are bytes, JSON strings are UTF-8: a path, folder, link target
// or turn id that is not valid UTF-8 is written as a NUL, "b64:" and the
// standard base64 of its bytes ("\u0000b64:YmFk/25hbWU="), so a rewind
// writes the very name captured, never one with U+FFFD in it. No file
// name holds a NUL, so the escaped form cannot be a real name, and a
// reader that predates it fails that path rather than write a wrong one.
// Turn files of format v1 hold neither "n" nor escaped names; v2 adds
// both, and reads v1 as it is.
//
// ops.log holds {"r":"op","v":2,"id":"op-N","kind":"rewind"|"undo"|"redo"|
// "revert","target","turns","retry","sess","except","steps","rmdirs","had","hadm",
// "mkdirs","mkdirm","index_was","index_set","at","n"} when an operation begins — retry names the
// operation whose failed paths it tries again; sess the agent session a
// revert took out (its target is then empty); except the paths a revert
// left with their change still in at the user's request, wholly (its
// "leave" steps) or in part (hunks kept as they were), so its turn is not reverted and a revert of it
// again takes them out (a revert logged before except was kept counts
// them as taken out, as the ckpt that wrote it did; an older ckpt reading
// one ignores it, as it ignores any key it does not know); had lists the rmdirs that existed and hadm
// their permission bits, mkdirs the folders an undo gives back and mkdirm
// theirs; index_was and index_set, when the operation put git's index
// file back, are images of the index before it and of what it wrote (an
// undo writes index_was back, a redo index_set) — and {"r":"done","id","recovered","abandoned","failed","fails",
// "none","at"} when it ends: failed lists the paths it could not put back and
// fails gives each with its reason ({"path","reason"}); none says every
// step failed, so it changed nothing. Its steps file holds one
// {"r":"step","p","i":now,"w":want,"back","do":"restore"|"delete"|"keep"|
// "fail"|"leave","why","hand","dirs"} per path ("leave": kept as it is at
// the user's request; "back", when present, is what an undo of the step
// puts back instead of "i": see State).
//
// # Packs
//
// A batch of more than a few new blobs (a bulk capture) is written as one
// pack rather than one file per blob:
//
//	"ckpt-pack 1\n"                       header, 12 bytes
//	frame…                                one zstd frame per blob, back to back
//	index                                 one line per blob:
//	                                      "<sha256> <offset> <frame length> <raw length>\n"
//	trailer, 32 bytes                     "CKPTIDX1", the index's offset and
//	                                      length (8 bytes each, big-endian),
//	                                      its crc32c (4 bytes), "END\n"
//
// A pack is written under packs/.tmp-<random>.pack, which no reader looks
// at, and renamed to packs/<id>.pack (id: 24 hex digits of the SHA-256 of
// its index) once whole; the batch's one barrier makes it durable before
// any record names its blobs. Readers load every pack's index once and
// check the trailer, the checksum and that each frame lies inside the
// file; a pack failing them is unreadable and its blobs are missing. A few
// new blobs (a hook's) stay loose files, which costs less than a pack's
// index; such a capture looks for a blob among loose files and the packs
// already loaded, not by reading every pack's index, so a pack may hold a
// loose blob's bytes too (a reader falls back to the packed copy when the
// loose one is damaged). Prune removes such a loose copy once the packed
// one reads back whole, drops a pack none of whose blobs is live and
// rewrites one holding dead blobs with only the live ones (frames copied
// as they are), making the new pack durable before it removes the old, so
// a crash at any point leaves every live blob in some pack.
//
// packs.idx locates every blob of the packs it names, so finding a blob
// never lists blobs/ nor reads every pack's index: a reader reads its
// head (the names and the fan-out), lists packs/ (a few names), and reads
// the own index of only the packs it does not name (those written
// since). A lookup reads the entries of its hash's first byte, checked
// as it reads them (each of that byte, in order, naming a listed pack);
// past 16 lookups, or a bucket of over 64 KiB, the reader reads the file
// whole and checks its checksum: a hook asks of a blob or two, and the
// file holds 60 bytes for every blob of the store. It is binary:
//
//	"ckptmidx\x00" and a version byte (1)
//	uvarint k, then k pack names (uvarint length, bytes)
//	256 uint32 fan-out counts (big-endian): the entries whose hash's
//	                  first byte is at most i
//	n entries of 60 bytes, sorted by hash: the 32-byte SHA-256, uint32
//	                  pack (an index into the names), uint64 offset,
//	                  uint64 frame length, uint64 raw length
//	uint32 crc32c     little-endian, of everything before it
//
// A blob several packs hold appears once. An entry whose pack is not in
// packs/ is not used; an index found damaged, at its head, by a lookup or
// read whole, is ignored from then on (each pack's own index serves) and
// reported by Verify, which reads it whole.
//
// Every batch of more than a few blobs writes a pack of its own, so packs
// pile up; a repack merges the smallest so that each pack left is at least
// twice the size of all smaller ones together (a geometric progression:
// each byte is copied a logarithmic number of times, and a store keeps a
// few dozen packs at most; past 16, all are merged), then writes packs.idx
// naming every pack. Its first step packs the loose blobs once 1,024 have
// piled up (all of them with maintain --now): those kept as they are go
// into one new pack (compressed past 1 KiB), durable before anything
// else, and each loose copy a pack holds is removed once the packed copy
// reads back whole, after packs.idx is written; so a long session keeps
// at most about a thousand loose files, not one per hook call. It is due
// once four packs are not in packs.idx (or there are more than 16, or
// 1,024 loose blobs), and runs in the background pass after a turn
// (see Retention) and at the end of prune. It holds blobs.lock shared,
// so captures go on and prune waits, and repack.lock exclusively. The
// merged pack is durable before packs.idx names it, and packs.idx is
// renamed into place (fsynced) before the packs it replaces are removed,
// so a crash at any point leaves every blob in some pack that some index
// names; a reader that finds a pack gone lists packs/ again.
//
// A blob of at most 1 KiB is a frame of one raw (uncompressed) block:
// compressing so few bytes costs the most time for the least room. So is
// a loose blob of at most 64 KiB: a hook's process lives for one event,
// and compressing a few KiB there (the encoder's tables fresh memory to
// fault in) costs more than the rest of its work. Prune puts the live
// ones into a pack, compressed, durable before the loose files go.
//
// Every blob, loose or packed, is opened only if it is a regular file,
// decoded no further than the length its record gives, and checked
// against its hash as it streams; files larger than 8 MiB are hashed,
// compressed and restored as they stream, never held whole.
//
// # Appending, and a torn last record
//
// A writer takes the lock, reads only its own turn's file, cuts a torn last
// record (an unterminated line or one failing its checksum) back to the
// last whole one, appends its records in one write, and fsyncs. So a
// capture costs the same in a store of 600,000 entries as in an empty one,
// and a record is never glued onto half of another. A damaged record in
// the middle of a file is skipped by readers and reported by Verify.
//
// A capture, a seal or a shell sweep's records do not read their turn's
// whole file either, so their cost stays flat however many calls the turn
// has seen: each reads the turn record (for its version), the slot of
// each path it looks up in the turn's path index, turns/<id>.idx (a hash
// table giving each path's first pre record and newest post record: see
// store/internal/turnidx for its bytes; a sweep needs the newest post to
// leave a path the agent's file tool sealed alone), and the records the
// index does not cover yet (the last call's, mostly; fewer than 16 KiB
// of them). It then merges into the slots what it appended to the turn
// file, and records that the index covers what the slots merged before
// its own barrier (a capture's or seal's syncfs, which made them
// durable) or, once 16 KiB of records lie past what the index covers, it
// syncs the index and covers them all: a slot may run ahead of what the
// index covers, never behind, even across a crash of the machine. A table past
// half full is written anew twice as large (synced, then renamed over
// the old), and a turn file shorter than 16 KiB has no index: it is read
// whole. The index is a cache: it names the turn file it indexes (device
// and inode) and how much of it its slots cover; a slot is trusted only
// once the record it points to reads back as that path's pre (or post)
// record; records past what it covers (appended by a ckpt that predates
// indexes of this version, or by one killed before it covered them) are
// read from the turn file; an index that is missing, damaged or of
// another file is built again from the turn file. A seal does not fail a
// path as not captured before the whole turn file says so. Prune removes
// a turn's index with its file, and purge when it rewrites the file.
// The first record's "v" is the format version; readers refuse versions
// they do not know (see Versions).
//
// # Versions
//
// Every file that has a format of its own names its version, and every
// reader refuses a newer one than it knows, naming the file and the
// version ("written by a newer ckpt … upgrade ckpt", ErrNewerFormat),
// before it changes anything; older versions are read as they are:
//
//	FORMAT            "ckpt-store/<v>", checked when the store is opened
//	turns/<id>.log    the turn record's "v"
//	ops.log           each op record's "v"; an operation's steps file is
//	                  of its op record's version
//	packs/<id>.pack   the header, "ckpt-pack <v>"
//	baseline          the magic's last byte
//	baseline.log      the magic's last byte
//	packs.idx         the byte after its magic
//	summary           the magic's last byte; a cache: one of a newer
//	                  version is not read, and left as it is
//	turns/<id>.idx    the uint32 after its magic; a newer one is read
//	                  past (the turn file is read instead), never written
//	conversations/<id>.json  its "v"
//	shut-folders      its "v"
//	shut-files        its "v"
//	clock.log         its first line, "ckpt-clock-log/1"; one that does not
//	                  begin so is not read (a load lists the turns)
//
// The rest carry none, and need none: seq and clock hold a number (fixed
// width, rewritten in place), sessions/<key>.turns the turns a session
// opened, a line each, the newest last (replaced by its last line past
// 4 KiB; an older ckpt's sessions/<key>, one turn id, is read first and
// removed on the next write),
// errors.log lines for people, statcache.json a
// cache thrown away when it does not parse, and blobs are named by their
// hash; index.json is the seed format, which ckpt never writes.
//
// # Durability
//
// Blobs are written to a temporary name and renamed, before the lock is
// taken (they are content-addressed, so a duplicate is harmless). A
// capture or a seal then appends its records and makes blobs and records
// durable together with one barrier (syncfs of the store's file system):
// one per call, however many files it names. It has not returned before
// the barrier, so the agent has not written yet, and a crash can at worst
// leave a record whose blob was lost while the file still holds exactly
// those bytes (a rewind keeps it; verify reports the blob). Other writers
// of blobs (a shell sweep, an operation) make them durable before any
// record names them: one syncfs for a batch, an fsync each for a few. An
// operation keeps the current bytes of every path it
// will touch as blobs (at any size), writes its steps file, makes both
// durable with one barrier, and only then logs {"r":"op"}. It then changes
// the folder — a file in place once fallocate has made sure its bytes fit
// (and put back whole if the write fails anyway), else through a fixed
// temporary name and a rename, so a write cut short by a full disk or an
// I/O error never leaves a torn file to be kept as a state — syncs, and logs
// {"r":"done"}. A folder whose mode shuts its owner out of what the
// operation keeps and changes in it is opened before the bytes are kept,
// and only once shut-folders names it and its mode, durably: a crash
// before the operation is logged leaves the note, and the next Open gives
// each folder still as opened its mode back; once logged, the folder's
// step gives it its mode. A folder read-only for its owner that no step
// names ("back" in the note; the project root is ".") is given its mode
// back when the operation ends, or by the Open that finishes it. Then the note goes, but for the
// folders whose mode could not be given back ("tries"): each later Open,
// and the end of each later operation, tries again, a bounded number of
// times. A file whose mode keeps its owner from reading it (000) is
// read, by its owner, the same way: shut-files names it, its mode and its
// inode, durably, before it is given read permission, and it is given
// its mode back as soon as it is open; shut-files is written only under
// shut-files.lock, so an entry the taker of that lock finds was left by
// a killed ckpt, and it (or the next Open) gives that file its mode back.
// An operation logged but not done was interrupted: the next
// Open takes the lock and carries it forward from its steps (each step is
// idempotent), so the folder is wholly as after it, and says so through
// Options.Notify and the error log. A path found holding neither what its
// step found nor what it writes was changed since the crash: it is left as
// it is and the step is failed, never overwritten.
//
// # State
//
// Turn and operation states are not stored: they follow from replaying
// ops.log. A rewind marks its turns rewound and pushes itself on the undo
// stack, emptying the redo stack; an undo pops it, brings its turns back
// and pushes it on the redo stack; a redo moves it back. An operation
// every step of which failed changed nothing and moves nothing, but its
// paths are failed like any operation's. Failed paths stay failed until the same command is run again: rewinding a turn
// whose rewind failed paths is a retry of just those (a rewind of its own,
// undone on its own); undo or redo after an undo or redo that failed paths
// finishes it. A redo of a rewind whose undo failed paths records, for
// those still holding what the rewind left, the bytes that undo was to
// bring back, so undoing the redo brings them back. A capture naming a
// rewound turn T goes to T.2 (then T.3 …).
//
// A revert takes its turns' changes out of the folder without rewinding
// them: it goes on the undo stack like a rewind, and its turns are
// reverted while it is in effect and none of their paths is left failed
// by it (a conflict is a failed step). Its steps' wants are merges, kept
// as blobs before the operation is logged. What a revert in effect wrote
// is what those paths are expected to hold, as a seal is (the hand-edit
// rule), until a newer seal. A rewind in effect to before a turn that
// began before a revert was made suspends that revert (time runs one
// way): the rewind's plan gives each path the revert wrote what it held
// before the revert, unless a turn from there on captured it earlier.
//
// # Safety
//
// A record's path is cleaned ("./b.txt" is "b.txt") and refused when it
// is absolute, holds "..", or lies in the store (.osfoundry itself or
// ckpt's own entries of it, see Shell sweeps): such an entry is shown
// as refused, fails in a rewind, and is reported by Verify.
//
// Every path from a record or an index is made relative to the root after
// resolving symlinks, refused if it lands outside (or inside the store),
// and every file operation on the project goes through an os.Root, so no
// record can reach outside it. Blob names must be 64 hex digits and are
// read only from blobs/; their bytes are checked against the name whenever
// read. A symlink is kept and restored as a link, never followed.
//
// The store's own files get the same discipline: .osfoundry, the store
// folder, its subfolders and every file in them (locks, records, the stat
// cache, the error log, session files) are opened one element at a time
// with O_NOFOLLOW, and only as regular files or folders. A symlink
// anywhere there is refused (ErrLinkInStore), never followed, and never
// replaced; a FIFO or device standing in for a store file is refused
// rather than waited on.
package store
