// # Shell sweeps
//
// A shell command says nothing of the files it writes, so around one the
// hooks (and `ckpt exec`) sweep the tree against the baseline: every path's
// stat and hash as the last sweep saw it. Before a command, what differs is
// kept as blobs and the baseline moves on (a hand edit goes to no turn);
// after it, what differs is recorded in the turn with the baseline as its
// pre-image, tagged with the command. A command of the turn the baseline
// was made for, with no operation since, skips the sweep before it: what
// changed meanwhile is the agent's, and the sweep after records it against
// the same baseline. Folders ignored by any .gitignore,
// the root's .git, and the store are not swept; .ckptignore patterns skip
// folders and files. A nested repository's .git folder is a baseline
// entry, never read: a command that removes it records it skipped. A
// new folder with nothing new under it (mkdir e) is recorded itself, as
// made ("post" a folder, "dirs" naming it), so a rewind removes it as it
// removes a new file's folders; one holding new entries goes with them.
//
// The store is ckpt's own entries of .osfoundry: checkpoints/, the
// .gitignore that keeps git out of it (not followed as rules either) and
// hooks/ (the hooks' stamps). The rest of .osfoundry, such as the budget
// in ckpt.json, is the project's and swept like any file; the folder
// itself is listed but never recorded, so no rewind removes or chmods
// it. A sweep after a command over a baseline that holds no .osfoundry
// (one taken when sweeps left all of it out) leaves it out too, and the
// next sweep before a command takes it in as a hand edit.
//
// Two agents may work in one folder. The sweep before a command adds it
// to open.json ({"turn","cmd","label","source","at"} each, dropped after
// two hours without its closing sweep) and the sweep after takes it out.
// What a sweep before a command finds changed while another session's
// command runs is that command's, not a hand edit: it goes to that
// command's turn. What a sweep after a command finds while other
// sessions' commands run is owned by no single command: it goes to every
// running command's turn, each record naming the others in "shared" (a
// revert of one of them treats the path as a conflict). A path the
// baseline lacks, found while another session's command runs, is left
// out of records and baseline, in left.json ("cmds" as in open.json;
// "paths": "path", "seen", "owners" as indexes in cmds; "bases": pairs
// [seen, base], base when the baseline the paths first left at seen
// were found missing from was taken, absent from a list an older ckpt
// wrote), until no owner
// runs: then it goes to every owner's turn, or, gone, to none. A new
// folder is listed so too, unless something in it is recorded now: it
// enters the baseline once no command that ran when it appeared runs,
// so a file a later command writes in it does not make it that
// command's. A path new in a folder the baseline could not list is not
// left: it may have been there all along, which a later baseline
// listing the folder no longer tells, so it is recorded at once, as not
// kept.
//
// A file tool's capture or seal appends a line a path to edits.log,
// synced when made while a command of another turn runs, or after a
// sweep made for another turn (whose next sweep after a command, or at
// its end, covers what changed since), unsynced otherwise (a command
// may begin before the seal): {"turn","path","at"} for a capture, with "was"
// (what the turn held of the path before the write: its last seal, else
// its capture) and "left" (what the tool left), images as in records,
// for a seal. A sweep that finds such a path changed leaves it to the
// writer's turn when the seals noted account for the whole change (the
// first starting from the baseline's image, each next from what the one
// before left, the last leaving what is there now, no capture since
// unsealed): no turn else records it, so a revert of a command's turn
// never takes another session's edit out; while a command of another
// turn runs on, the next baseline keeps what the old one held of it (a
// new path stays out), so a later write of it by that command is
// recorded from what it held before both. Otherwise the command may
// have written it too: its record names the writers' turns in "shared".
// A capture with no seal since is such a writer, however old, until
// two hours (as for open.json) after its "at": then it is dropped, so
// a call whose seal never came (its agent killed) is not one for ever.
// A turn's end drops its notes when no command of another turn runs
// and the last sweep was not another turn's: no sweep is to settle
// them, so a session that runs no command does not grow the file.
// A sweep reads edits.log under the store's lock, which it holds until
// its records are written, so a seal that finished before them is seen.
// A sweep drops the notes made before it began, unless their path is
// left, held back or still being written.
//
// The baseline records the ignore files its listing followed, and the
// sweep after a command skips by those rules, not by the ignore files the
// command left: otherwise a command that adds "build/" to .gitignore while
// writing build/x would hide that write (its pre-image lost), and one that
// deletes .gitignore would record every file under build/ as created (a
// rewind would delete them). A folder the baseline lacks follows its own
// ignore files on disk, since nothing under it is in the baseline (a
// command that makes a project with a node_modules/ it ignores does not
// record node_modules/). The baseline that sweep writes keeps the old
// rules with the listing made under them; the next sweep before a command
// follows the ignore files on disk again, and what they stop ignoring
// enters the baseline there, as a hand edit. A baseline of version 2,
// which has no rules, leaves the sweep after to follow the disk.
//
// Adding, removing or renaming an entry sets its folder's mtime and
// ctime, so a folder whose stat is the one the baseline recorded (and not
// racily close to "at") holds the entries the baseline lists under it:
// the sweep stats those without reading the folder, as git's untracked
// cache does. It does so only on local file systems known to keep those
// times (ext4, XFS, Btrfs, tmpfs, F2FS, ZFS, on the root's device), and
// only where the ignore files of the folder and its parents are the
// baseline's; a folder whose listing left something out (a subfolder it
// could not open) is recorded with no stat, and read again.
//
// The baseline is a table of blocks, written whole now and then, and a
// log beside it to which each sweep appends what it changed, so a sweep
// writes only the entries it changed, and one fed by a watcher reads only
// the blocks of the folders it lists. One without a watcher lists every
// folder, but compares each listing, as it is made, with the baseline's
// entries of that folder (looked up in the table, a bounded few blocks
// kept decoded) and keeps only what differs: it never holds the tree, in
// either form, and its memory does not grow with it. The table:
//
//	"ckptbl\x00\x05"    magic; the last byte is the version (5)
//	uint32 n, head     n bytes: varint at (Unix ns when the sweep that
//	                   wrote it began), str turn, str cmd (the turn and
//	                   command of the last sweep made for a turn), varint
//	                   ops (the size of ops.log then: an operation since
//	                   ends the turn's run), 8 bytes generation (random,
//	                   new with each table); then uint32 crc32c of the
//	                   magic and head
//	blocks             each: uvarint k, then k entries sorted by path
//	                   (byte order; blocks in order too, at most 64 entries
//	                   each), then uint32 crc32c of the block. An entry:
//	  uvarint shared, str suffix   the path: shared bytes of the previous
//	                   entry in the block (0 for a block's first), the rest
//	  byte kind        'f' file (bytes in a blob), 's' over the size limit,
//	                   'l' link, 'd' folder, 'x' unreadable, or a named
//	                   pipe, socket or device node (its mode marked)
//	  uvarint mode     permission bits; an unreadable folder's has
//	                   0o40000 set, a special file's its type in bits
//	                   20-21 (1 named pipe, 2 socket, 3 device)
//	  a folder: varint mtime, varint ctime, uvarint inode, taken before
//	                   it was listed (all 0: its listing left something
//	                   out), and the entry ends
//	  uvarint size, varint mtime, varint ctime, uvarint inode
//	  32 bytes SHA-256 ('f', 's') or str target ('l')
//	meta               uvarint m, then m rules sorted by path: str path,
//	                   str bytes of a .gitignore or .ckptignore the listing
//	                   followed (the empty ones left out); the recheck list
//	                   (uvarint r, r str, sorted: the entries whose stat
//	                   could not vouch for them, below); uvarint count of
//	                   entries; then uint32 crc32c of the meta
//	index              uint64 offset of each block (little-endian, as all
//	                   fixed-width numbers here)
//	trailer            uint64 meta offset, uint64 index offset, uint32
//	                   crc32c of the index, "BLX\n"
//
// (str is a uvarint length and the bytes.) The log:
//
//	"ckptbll\x00\x01"   magic; the last byte is the version (1)
//	8 bytes            the generation of the table it extends
//	uint32             crc32c of the magic and generation
//	frames             each: uint32 n, n bytes, uint32 n, uint32 crc32c
//	                   of the n bytes, "blf\n". A frame's bytes: the head
//	                   as the table's without the generation; byte flags
//	                   (1: the rules follow, replacing the table's; 2: the
//	                   recheck list's changes follow); the rules as in the
//	                   meta; the paths the recheck list gained and those
//	                   it lost (each uvarint r, r str); uvarint k and k
//	                   entries put, sorted, as in a block; uvarint d and
//	                   d str, the paths removed
//
// A reader takes the table's head, index and meta, applies the log's
// whole frames in order (the last frame's head is the baseline's; a
// sweep that only checks the head reads the log's last frame from its
// end), and reads a block when it looks a path up. A log naming another
// generation is passed over; a frame failing its checks ends the log (a
// torn last write), and the next sweep cuts the log back to the last
// whole frame before it appends. Past an eighth of the table (64 KiB to
// 1 MiB) the background pass writes a new table (a sweep only past four
// times that) through a temporary name, renames it into place and
// removes the log, so a crash at any point leaves the old table with its
// log, or the new table (with a log of the old generation, passed over).
// A log long only with what no reader reads (another generation's, a
// torn tail) the pass removes, or cuts back to its last whole frame,
// which changes no baseline a sweep reads. Versions 2 to
// 4 are one file, read whole: the version-5 layout of the head without
// generation and uint32 head length, uvarint n and n entries as one
// block (version 3's folders have no times), the rules (version 2 ends
// before them) and one crc32c of everything before it; the first sweep
// that writes to one writes a table.
//
// An entry whose mtime or ctime is within two seconds of "at" is racy:
// it is hashed again whatever its stat says, as git treats racily clean
// index entries, and kept again only when its bytes are no longer the
// baseline's. A ctime ckpt's own read left is the exception: the entry
// of a file its owner cannot read holds the ctime that read left it (its
// read permission given and its mode given back, after "at"), taken only
// when the file read is the one listed. Racy entries but those, folders
// whose listing left something out and unreadable files make the
// recheck list, which a sweep fed by a watcher looks at whatever the
// watcher says; a file its owner cannot read that the list leaves out
// has a ctime ckpt's own, and any other ctime counts. The baseline is written
// after the blobs it names are durable and after the turn's records, and
// is not fsynced: a sweep killed at any point leaves the old baseline or
// the new one; a damaged or missing one is ignored, and the next sweep
// reads every file and attributes nothing. Prune keeps its blobs.
//
// A folder the baseline lists that a sweep cannot open ('x', its mode
// marked) stands with the entries under it, its files and links made
// 'x' with their stat kept: what they hold is unknown from then on. In
// the sweep after a command that is the command's doing: it records the
// folder ("dir", mode before and after) and each of those files with its
// pre-image and no post, so a rewind opens the folder to keep and put
// back what is in it.
//
// A named pipe, a socket or a device node is listed with its stat
// alone (nothing to read) and recorded with its kind ("fifo", "socket",
// "device") and mode when a command makes or removes it, or puts one
// where a file was; writing to a pipe moves only its stat, no change. A
// rewind removes one its turns made, and makes a named pipe again
// (mkfifo, with its mode); a socket or a device it reports as not
// restored. Its 'x' entry keeps a ckpt that predates special files
// from misreading it: that one reads an unread path, and records its
// removal as not kept. One such a ckpt left out of its baseline, found
// by a sweep after a command with a ctime from before the baseline, is
// taken into the baseline, not given to the command.
//
// # Summary
//
// Listing the turns of a big store would read every turn file. The
// summary holds what reading each one gave — its header, git's state at
// its end, and per path the images, times (when its pre-image was seen
// too), folders, command and the turns it was shared with — with the
// file's size, mtime, ctime and inode when it was read and the length of
// its whole records. A reader lists turns/, stats each file (no open),
// and takes an entry only while the file's stat is the one it records; a
// file grown since (the same inode, an entry made from records) is read
// from where the entry stopped, any other is read whole. So the summary
// is never believed over the records: it only spares reading those that
// did not change. A file with a torn last record is never summarized. An
// entry's paths are decoded when a turn's files or statuses are asked
// for; a listing needs their count.
//
// The generation spares the listing and the stats. Every record appended
// to a turn file takes an order number from the clock file first, under
// the store lock (a writer of any version must), and making, removing or
// renaming a turn file changes the turns folder's times. A load reads the
// clock holding the lock shared (without waiting: if a writer holds it,
// the load lists as above; ckpt watch's sweep, holding it to record,
// loads before it takes a number, which stands for the shared hold) and
// stats the folder; when the folder was left
// alone for two seconds and every turn file is whole and summarized, the
// summary ends with a generation frame of both and of the system's boot
// (Linux's boot_id, macOS's boot session). A load that finds them as the
// last frame says reads the summary alone; one that finds them as its
// Store's previous load did (the UI's) reads nothing. The clock is
// written without a sync and a record is synced after it, so a crash of
// the system can keep a record and lose the clock's update: a generation
// of another boot, or one naming none (written before it was kept), is
// never trusted, and a load that cannot read the boot records none.
//
// The clock journal, clock.log, spares them too once writers moved on.
// A holder of the store lock that took an order number appends one line
// as it lets the lock go, unsynced as the clock is:
//
//	<prev> <n> <size> <mtime> <ctime> <ino> <size> <mtime> <ctime> <ino> <name>… <crc>
//
// the clock as it found it, the last number it took, the turns folder's
// stat as it took the lock and as it leaves it, the turn files it
// changed (named as in turns/; "*" for any: a prune), and the crc32c of
// the rest of the line in 8 hex digits, after a first line
// "ckpt-clock-log/1". Changes made without a record (a torn tail cut, a
// purge's rewrite, a prune's removal) take a number first, named so; a
// holder that took none but left the folder changed appends a line that
// is no entry. A load whose generation is older walks back from the
// clock and the folder it finds: each line must have left them so (its
// number the clock, its folder as left the folder), and gives the
// clock and folder before it, until the generation's are reached; it
// then reads only the files those lines name, and takes as its own the
// generation it found when the folder is settled or is as the last line
// left it. A line that does not parse (torn, damaged, two run together),
// a number no line took (a ckpt older than the journal writes only the
// clock, one killed holding the lock never appends), a folder changed
// between two holders (a file removed by hand), "*", a journal not
// reaching back far enough, or one of another version: the load lists
// the folder, as above. A writer that finds the journal past 256 KiB
// renames its newer half over it. A ckpt that predates the journal
// neither reads nor writes it: what it writes breaks the chain, and a
// later ckpt lists the folder once.
//
// The file is frames of a crc32c each, a later one for a name replacing
// an earlier one: entries, names marked gone and generations (the layout
// is described with its codec, summary_codec.go). Readers keep it
// up to date, not writers, so no hook pays for it: a load that read turn
// files appends their entries — of those left alone for two seconds, as
// one being written would be stale at once — under a flock of the file
// that nothing waits for (a reader finding it held leaves the work to the
// holder). Once stale entries outweigh the live ones the file is written
// anew under a temporary name and renamed over it. A write cut short
// leaves a bad last frame, which the next writer cuts; a missing, damaged
// or foreign summary only costs a full read. Stores of under 200 turns
// keep none.
//
// # Conversations
//
// For agents that keep no transcript ckpt can read (opencode, pi), the
// hook records what the turn's agent was asked and said, from the events
// ckpt's plugin forwards: conversations/<id>.json, named as the turn's
// file is, holds {"v":1,"prompt","reply","calls":[{"name","target",
// "state"}],"dropped"} — the prompt (from the prompt's event), the
// agent's last reply and its tool calls in order, each with the path or
// command it named and "ok" or "failed" ("state" absent: no result
// seen), and how many calls were left out past the file's bounds (64 KiB
// a text, 2000 calls, 1 MiB the file). Each event that brings some of it
// rewrites the file whole, keeping what it does not bring, through a
// temporary name and a rename, unsynced: the file is for showing only,
// and a missing or damaged one costs the conversation view, never the
// turn. A reader refuses a newer "v" (ErrNewerFormat). Prune and the
// retention pass remove it with its turn; a ckpt that predates it leaves
// it in place, unread. Verify reads each one: a file that does not decode
// is FindDamagedConversation, one whose name is no turn's
// FindNotConversation.
//
// # Retention
//
// A project's budget is set in <root>/.osfoundry/ckpt.json (a JSON object,
// comments allowed; see ConfigFile): "retention": {"max_age" (default
// "30d"), "max_size" (default "2GiB"), "keep" (default 20), "auto"
// (default true)}. At the end and at the start of each agent turn, and
// after `ckpt exec`, the caller asks BackgroundWanted (a few names and
// stats; the config only when a pass is due) and, when a repack or a
// retention pass is due (at most one an hour, the first an hour after the
// store was made), no pass holds maintain.lock, and "auto" is not false,
// starts `ckpt maintain` detached — its own session, standard streams on
// /dev/null — so no hook waits on it. A pass holds maintain.lock
// (flock) from its start; one started at a turn's start or after exec
// first waits until the clock, the baseline and ops.log have not moved
// for MaintainQuiet, so the turn's hooks do not wait on its locks. The pass takes
// both locks, as prune does, and drops turns oldest first: those older
// than max_age, then more while the store is over max_size, until what
// they alone name brings it under nine tenths of it. It stops at the
// newest keep turns, at any turn an operation on the undo or redo stack
// names, and never drops a turn newer than one it keeps; operations'
// steps keep their bytes, so every undo and redo stays possible. Turn
// files go first, then blobs nothing names, as prune does; then
// "retained" is rewritten.
//
// # Purge
//
// Purge removes every kept copy of some paths. It writes "purging" (the
// paths, escaped as record names, a line each; an empty line; the hashes
// of the blobs their records name), fsynced, then replaces each turn file
// and steps file holding a record of those paths with one in which those
// images are of kind "skipped" with the reason "purged from the store
// (ckpt purge)" and no hash (a reader older than purge reports the path as not
// restorable, like any skipped file; other lines are kept byte for byte),
// drops the paths from the baseline and the stat cache, redacts what the
// journaled blobs hold from every conversation file (each occurrence of a
// blob's whole text, of each of its lines, of each line with its runs of
// spaces made one as a kept command is, and of the value of each KEY=VALUE
// or "key: value" line, trimmed and of at least 6 bytes, becomes
// "[purged]"; each file so changed is replaced whole and fsynced, one that
// does not decode and holds such bytes is removed, and the folder is
// synced before any blob goes, so a purge carried forward finds the same
// bytes again), deletes the journaled blobs no record names any more (loose files, and frames, by
// rewriting each pack that held one without it, durable before the old
// pack goes), writes packs.idx again, and removes "purging". Every file is
// replaced whole, so a crash leaves each one before or after; the next
// Open that finds "purging" takes both locks and carries it forward.
//
// # Seed stores
//
// A store written by the seed design (index.json, a JSON array of turns
// with absolute paths and numeric or string ids, and raw blobs) is read as
// it is: its turns list, diff and rewind like ckpt's own, and ckpt's own
// records are added beside it.
package store
