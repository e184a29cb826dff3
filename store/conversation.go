package store

import (
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"strings"

	"github.com/ckpt-dev/ckpt/store/internal/conversation"
	"github.com/ckpt-dev/ckpt/store/internal/format"
	"github.com/ckpt-dev/ckpt/store/internal/storefs"
)

// Conversation is what a turn's agent was asked and said — the prompt,
// its last reply, its tool calls in order — as the agent's own events
// told the hook, for agents that keep no transcript ckpt can read
// (opencode, pi). See the package doc, "Conversations".
type Conversation = conversation.Turn

// ConversationCall is one tool call of a Conversation.
type ConversationCall = conversation.Call

// How a ConversationCall ended; "" when no result was seen.
const (
	CallOK     = conversation.StateOK
	CallFailed = conversation.StateFailed
)

// conversationsDir holds the conversation files.
const conversationsDir = "conversations"

// conversationFileName is turn id's conversation file: named as its turn
// file is, in conversations/.
func conversationFileName(id string) string {
	name := strings.TrimSuffix(strings.TrimPrefix(turnFileName(id), "turns/"), ".log")
	return conversationsDir + "/" + name + ".json"
}

// SaveConversation records what turn's agent was asked and said, over
// what the turn's file held: a prompt, reply or list of calls c leaves
// empty keeps the one recorded before. The file is written whole and
// renamed into place, not synced: it is for showing, and a crash costs at
// worst the view of the turn's conversation, never its records.
func (s *Store) SaveConversation(turn TurnID, c Conversation) error {
	if err := turn.check(); err != nil {
		return err
	}
	if err := s.dir.Mkdir(conversationsDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return errf("create %s: %w", s.path(conversationsDir), err)
	}
	name := conversationFileName(string(turn))
	if old, err := s.readConversation(name); err == nil {
		c = old.Merge(c)
	}
	if err := storefs.WriteAtomic(s.dir, name, conversation.Encode(c), 0o600, false); err != nil {
		return errf("write %s: %w", s.path(name), err)
	}
	return nil
}

// ConversationOf is turn's conversation as the hook recorded it, and the
// file it was read from. The error wraps fs.ErrNotExist when the hook
// recorded none (an agent whose transcript is read instead, or a turn
// from before ckpt kept them), ErrCorrupt or ErrNewerFormat when the file
// cannot be read; it names the file.
func (s *Store) ConversationOf(turn string) (*Conversation, string, error) {
	name := conversationFileName(turn)
	c, err := s.readConversation(name)
	if err != nil {
		return nil, s.path(name), err
	}
	return &c, s.path(name), nil
}

func (s *Store) readConversation(name string) (Conversation, error) {
	f, err := s.dir.Open(name)
	if err != nil {
		return Conversation{}, errf("read %s: %w", s.path(name), err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, conversation.MaxFile+1))
	if err != nil {
		return Conversation{}, errf("read %s: %w", s.path(name), err)
	}
	return conversation.Decode(s.path(name), data)
}

// dropConversation removes turn id's conversation file, if it has one.
func (s *Store) dropConversation(id string) error {
	name := conversationFileName(id)
	if err := s.dir.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return errf("remove %s: %w", s.path(name), err)
	}
	return nil
}

// conversations checks every conversation file: that its name is a
// turn's conversation file and that it reads (for showing only: a
// damaged one costs the conversation view, never the turn).
func (v *verifier) conversations() {
	names, err := storefs.Names(v.s.dir, conversationsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if err != nil {
		v.add(Finding{Kind: FindUnreadable, File: conversationsDir, Detail: err.Error()})
		return
	}
	for _, n := range names {
		if strings.HasPrefix(n, ".tmp-") {
			continue // a write in flight, or one a crash left: never read
		}
		name := conversationsDir + "/" + n
		if !isConversationName(n) {
			v.add(Finding{Kind: FindNotConversation, File: name})
			continue
		}
		_, err := v.s.readConversation(name)
		var newer *format.NewerFormat
		switch {
		case err == nil:
		case errors.As(err, &newer):
			v.add(Finding{Kind: FindNewerFormat, File: name, Detail: newer.Why()})
		case errors.Is(err, ErrCorrupt):
			why := strings.TrimPrefix(err.Error(), v.s.path(name)+": ")
			v.add(Finding{Kind: FindDamagedConversation, File: name, Detail: strings.TrimPrefix(why, ErrCorrupt.Error()+": ")})
		default:
			v.add(Finding{Kind: FindUnreadable, File: name, Detail: err.Error()})
		}
	}
}

// isConversationName reports whether n (a name in conversations/) is the
// conversation file of some turn id.
func isConversationName(n string) bool {
	base, ok := strings.CutSuffix(n, ".json")
	if !ok || base == "" {
		return false
	}
	id := base
	if hexID, ok := strings.CutPrefix(base, "%"); ok {
		raw, err := hex.DecodeString(hexID)
		if err != nil {
			return false
		}
		id = string(raw)
	}
	return conversationFileName(id) == conversationsDir+"/"+n
}
