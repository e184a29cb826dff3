// Package transcript reads what an agent said in a turn from the file
// where the agent keeps its session's conversation: the prompt, the
// agent's final reply, and the tool calls it made in order, each with its
// name, the path or command it was given, and whether it succeeded.
//
// # Formats
//
// Each agent keeps its own format; Read takes the agent's name:
//
//   - claude: Claude Code's session JSONL (transcript_path): lines of
//     {"type":"user"|"assistant", "timestamp", "promptId"?, "message":
//     {"content": text | [{"type":"text"}, {"type":"tool_use","id",
//     "name","input"}, {"type":"tool_result","tool_use_id","is_error"}]}}.
//   - codex: Codex's rollout file: lines of {"timestamp", "type", "payload"}
//     where event_msg payloads task_started (turn_id), user_message,
//     agent_message and task_complete (last_agent_message) frame a turn,
//     and response_item payloads function_call, custom_tool_call and their
//     _output carry the calls.
//   - gemini: Gemini CLI's chat recording: one JSON object with
//     "messages", or JSONL of those messages (a line repeating an "id"
//     replaces the earlier one); a message is {"type":"user"|"gemini",
//     "content", "timestamp", "toolCalls":[{"name","args","status"}]}.
//   - qwen: Qwen Code's chat JSONL: {"type":"user"|"assistant"|
//     "tool_result", "timestamp", "message":{"parts":[{"text"},
//     {"functionCall"}, {"functionResponse"}]}, "toolCallResult":
//     {"callId","status"}}.
//   - copilot: Copilot CLI's session events.jsonl: {"type":
//     "user.message"|"assistant.message"|"tool.execution_start"|
//     "tool.execution_complete", "data", "timestamp"}.
//
// # Defensive by design
//
// A transcript is another program's file, read while that program may be
// writing it. Read never panics on its content: a line that is not JSON,
// or not the shape expected, is skipped and counted; a line over MaxLine
// bytes is skipped unread; past MaxRead bytes only the file's last MaxRead
// bytes are read (the newest turns); texts are cut to MaxText bytes and
// calls to MaxCalls. The text is returned raw: callers escape control
// characters before showing it.
package transcript

import (
	"errors"
	"strings"
	"time"
	"unicode/utf8"
)

// Limits on what Read takes from a transcript.
const (
	MaxRead  = 64 << 20 // bytes read from one file: its tail when larger
	MaxLine  = 8 << 20  // longest line parsed; longer ones are skipped
	MaxText  = 64 << 10 // longest prompt or reply kept
	MaxCalls = 2000     // most tool calls kept per turn
)

// ErrUnknownAgent means Read was asked for an agent whose transcripts it
// cannot read.
var ErrUnknownAgent = errors.New("transcript: no reader for this agent")

// ErrNoTurn means the transcript was read and holds no turn that matches
// the one asked for.
var ErrNoTurn = errors.New("transcript: the turn's prompt is not in the transcript")

// State is how a tool call ended.
type State string

// Call states.
const (
	StateOK      State = "ok"
	StateFailed  State = "failed"
	StateUnknown State = "" // no result recorded (yet)
)

// Call is one tool call of a turn.
type Call struct {
	Name   string // the tool, as the agent names it
	Target string // the path or command it was given, when it names one
	State  State
	id     string
}

// Turn is one prompt of a session and what followed it, up to the next
// prompt.
type Turn struct {
	ID     string    // the agent's id for the prompt, when the format has one
	At     time.Time // when the prompt was recorded; zero when unknown
	Prompt string
	Reply  string // the agent's last text in the turn
	Calls  []Call
}

// Conversation is the turn Read found, with what it could not read.
type Conversation struct {
	Turn
	Agent string
	Path  string
	// Skipped counts lines that could not be read (damaged, over MaxLine,
	// another shape); Truncated is set when only the file's tail was read.
	Skipped   int
	Truncated bool
	// Dropped counts calls made after those kept, where the conversation
	// was kept with a bound on its calls (ckpt's store, for agents whose
	// events bring it).
	Dropped int
}

// Want names the turn to find in a session's transcript, from what the
// store knows of it.
type Want struct {
	PromptID string    // the agent's prompt or turn id (Source.Prompt)
	Label    string    // the turn's label: the prompt's first line, maybe cut
	At       time.Time // when the turn began
}

// nearby is how far apart the store's time for a turn and the
// transcript's time for its prompt may be when nothing else matches.
const nearby = 10 * time.Minute

// pick chooses the turn wanted among turns: by prompt id, else the turn
// whose prompt matches the label that is nearest in time, else the turn
// nearest in time within a few minutes.
func pick(turns []Turn, w Want) (Turn, bool) {
	if w.PromptID != "" {
		for _, t := range turns {
			if t.ID == w.PromptID {
				return t, true
			}
		}
	}
	best, found := -1, false
	var bestGap time.Duration
	consider := func(i int) {
		gap := absDur(turns[i].At.Sub(w.At))
		if w.At.IsZero() || turns[i].At.IsZero() {
			gap = 0 // no clock to compare: the last match wins
		}
		if !found || gap <= bestGap {
			best, bestGap, found = i, gap, true
		}
	}
	for i, t := range turns {
		if labelMatches(w.Label, t.Prompt) {
			consider(i)
		}
	}
	if found {
		return turns[best], true
	}
	if w.At.IsZero() {
		return Turn{}, false
	}
	for i, t := range turns {
		if !t.At.IsZero() && absDur(t.At.Sub(w.At)) <= nearby {
			consider(i)
		}
	}
	if found {
		return turns[best], true
	}
	return Turn{}, false
}

func absDur(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// labelMatches reports whether a turn labelled label (a prompt's first
// non-blank line, cut with "…" when long) came from prompt.
func labelMatches(label, prompt string) bool {
	label = strings.TrimSuffix(squash(label), "…")
	if label == "" {
		return false
	}
	return strings.HasPrefix(squash(prompt), label)
}

// squash collapses runs of white space to one space and trims the ends,
// so a label compares with the prompt it came from.
func squash(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
}

// clip cuts s to MaxText bytes on a rune boundary, saying how much was
// left out.
func clip(s string) string {
	if len(s) <= MaxText {
		return s
	}
	cut := MaxText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n… (" + itoa(len(s)-cut) + " more bytes)"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// parseTime reads the RFC 3339 times transcripts carry; anything else is
// the zero time.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
