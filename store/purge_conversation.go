package store

import (
	"cmp"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/store/internal/conversation"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// A conversation file can hold a purged path's bytes too: a prompt that
// pasted them, a reply that quoted them, a shell command that wrote them
// (a heredoc, an echo into the file). Purge redacts them there, before any
// blob goes, from what the blobs it deletes held (see Purge in the
// package doc).

// Redacted stands where a conversation held a purged path's bytes.
const Redacted = "[purged]"

// Bounds on what purge looks for: a needle is at least needleMin bytes
// (shorter ones are words any reply holds); each blob gives what its
// first needleRead bytes hold; a replacer holds at most batchMax bytes of
// needles, so purging a big folder costs passes, not unbounded memory.
const (
	needleMin  = 6
	needleRead = 1 << 20
	batchMax   = 4 << 20
)

// purgeConversations redacts, in every conversation file, what the blobs
// in gone hold. Each file changed is replaced whole and durably, and the
// folder synced, before the caller deletes a blob, so a purge killed part
// way finds the same bytes again when it is carried forward. A file that
// does not decode (damaged, or of a newer ckpt) and holds one of them is
// removed: it could not be shown anyway. Caller holds both locks and s.mu.
func (s *Store) purgeConversations(gone map[BlobID]bool, res *PurgeResult, fp *failpoint) error {
	if len(gone) == 0 {
		return nil
	}
	names, err := storefs.Names(s.dir, conversationsDir)
	if err != nil {
		return errf("purge: read %s: %w", s.path(conversationsDir), err)
	}
	if len(names) == 0 {
		return nil
	}
	reps := s.purgeReplacers(gone)
	if len(reps) == 0 {
		return nil
	}
	redact := func(x string) string {
		for _, r := range reps {
			x = r.Replace(x)
		}
		return x
	}
	changed := false
	for _, n := range names {
		if strings.HasPrefix(n, ".tmp-") || !isConversationName(n) {
			continue
		}
		name := conversationsDir + "/" + n
		c, err := s.readConversation(name)
		if err != nil {
			data, rerr := s.dir.ReadFile(name)
			if rerr != nil || redact(string(data)) == string(data) {
				continue
			}
			if err := s.dir.Remove(name); err != nil {
				return errf("purge: remove %s: %w", s.path(name), err)
			}
			changed = true
			res.Conversations++
			fp.hit()
			continue
		}
		was := conversation.Encode(c)
		c.Prompt, c.Reply = redact(c.Prompt), redact(c.Reply)
		for i := range c.Calls {
			c.Calls[i].Name, c.Calls[i].Target = redact(c.Calls[i].Name), redact(c.Calls[i].Target)
		}
		data := conversation.Encode(c)
		if string(data) == string(was) {
			continue
		}
		if err := storefs.WriteAtomic(s.dir, name, data, 0o600, true); err != nil {
			return errf("purge: write %s: %w", s.path(name), err)
		}
		changed = true
		res.Conversations++
		fp.hit()
	}
	if !changed {
		return nil
	}
	if err := storefs.SyncDir(s.dir, conversationsDir); err != nil {
		return errf("purge: sync %s: %w", s.path(conversationsDir), err)
	}
	fp.hit()
	return nil
}

// purgeReplacers are what redacts the bytes the blobs in gone hold: for
// each, the whole of it, each line, each line with its runs of spaces
// made one (as a kept command is), and the value of a KEY=VALUE or
// "key: value" line, each trimmed and at least needleMin bytes; longest
// first, so a line goes whole before a value inside it. A blob that
// cannot be read gives nothing.
func (s *Store) purgeReplacers(gone map[BlobID]bool) []*strings.Replacer {
	seen := map[string]bool{}
	var needles []string
	add := func(x string) {
		x = strings.TrimSpace(x)
		if len(x) >= needleMin && utf8.ValidString(x) && !seen[x] {
			seen[x] = true
			needles = append(needles, x)
		}
	}
	for sum := range gone {
		rc, err := s.openBlob(sum, -1)
		if err != nil {
			continue
		}
		data, _ := io.ReadAll(io.LimitReader(rc, needleRead)) // what was read counts, damaged or not
		_ = rc.Close()
		text := string(data)
		add(text)
		for l := range strings.SplitSeq(text, "\n") {
			add(l)
			add(strings.Join(strings.Fields(l), " "))
			if _, v, ok := strings.Cut(l, "="); ok {
				add(v)
				add(strings.Trim(strings.TrimSpace(v), `"'`))
			}
			if _, v, ok := strings.Cut(l, ": "); ok {
				add(v)
				add(strings.Trim(strings.TrimSpace(v), `"'`))
			}
		}
	}
	slices.SortFunc(needles, func(a, b string) int {
		if c := cmp.Compare(len(b), len(a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var out []*strings.Replacer
	for len(needles) > 0 {
		var pairs []string
		size := 0
		for len(needles) > 0 && (len(pairs) == 0 || size+len(needles[0]) <= batchMax) {
			pairs = append(pairs, needles[0], Redacted)
			size += len(needles[0])
			needles = needles[1:]
		}
		out = append(out, strings.NewReplacer(pairs...))
	}
	return out
}
