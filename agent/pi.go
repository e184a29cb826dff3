package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ckpt-dev/ckpt/store"
)

// pi has no hook commands: a TypeScript extension in .pi/extensions/ runs
// inside it. ckpt's extension (written by install) starts `ckpt hook pi`
// for each event that matters and waits for it, synchronously: pi awaits
// an extension's tool_call handler, so the capture happens before the tool
// runs. A prompt's turn runs from input to agent_end (pi's turn_* events
// mark each model reply, not each prompt). pi's events carry no session
// id, so the extension makes one for the pi process it runs in. An
// extension that throws in tool_call blocks the tool: every call is
// wrapped, and ckpt's answer is never read.
func init() {
	register(&adapter{
		name:  "pi",
		parse: parsePi,
		install: ownedInstaller{
			file:   ".pi/extensions/ckpt.ts",
			render: renderPiExtension,
			find:   findConstCKPT,
			past:   []func(string) []byte{renderTemplate(piExtensionFirst)},
		},
	})
}

// piEvent is what ckpt's extension sends (see piExtension).
type piEvent struct {
	Event   string          `json:"event"` // input, tool_call, tool_result, agent_end
	Cwd     string          `json:"cwd"`
	Session string          `json:"session"`
	Text    string          `json:"text"`
	Tool    string          `json:"tool"`
	CallID  string          `json:"callId"`
	Input   json.RawMessage `json:"input"`
	IsError bool            `json:"isError"`
	// Messages (agent_end) are the run's messages, cut down (piMessage).
	Messages json.RawMessage `json:"messages"`
}

func parsePi(data []byte, _ func(string) string) (event, error) {
	var e piEvent
	if err := json.Unmarshal(data, &e); err != nil {
		return event{}, fmt.Errorf("decode the event: %w", err)
	}
	ev := event{name: e.Event, session: e.Session, cwd: e.Cwd, project: e.Cwd}
	switch e.Event {
	case "input":
		ev.do, ev.text = startTurn, e.Text
		ev.said = &store.Conversation{Prompt: e.Text}
		return ev, nil
	case "agent_end":
		ev.do = turnEnd
		if len(e.Messages) > 0 {
			ev.said, ev.saidErr = piSaid(e.Messages)
		}
		return ev, nil
	case "tool_call":
		ev.do = beforeWrite
	case "tool_result":
		ev.do = afterWrite
	default:
		return ev, nil
	}
	switch e.Tool {
	case "bash":
		ev.do = map[action]action{beforeWrite: shellBefore, afterWrite: shellAfter}[ev.do]
		ev.command = shellCommand(e.Tool, toolCommand(e.Input))
		return ev, nil
	case "write", "edit":
		paths, err := inputPaths(e.Input)
		if err != nil {
			return ev, fmt.Errorf("%s %s: %w", e.Event, e.Tool, err)
		}
		ev.paths = paths
	default:
		ev.do = ignore
	}
	return ev, nil
}

// piExtension is the extension file install writes, with the ckpt
// binary's path as a JSON (hence TypeScript) string literal.
const piExtension = `// ckpt: keeps what pi's write, edit and bash tools are about to change, turn
// by turn, so that ` + "`ckpt`" + ` can show and rewind it, and what each turn said.
// Written by ` + "`ckpt install pi`" + `; ` + "`ckpt uninstall pi`" + ` removes it (an edited
// copy is left alone).
import { spawnSync } from "node:child_process"

const CKPT = %s
const FILE_TOOLS = new Set(["write", "edit"])
// The shell says nothing of what it writes: ckpt sweeps the tree around it.
const SWEPT_TOOLS = new Set(["bash"])
// pi's events name no session: one per pi process.
const SESSION = process.pid + "-" + Date.now()
// The most of a text and of the calls sent to ckpt (it keeps no more).
const MAX_TEXT = 65536
const MAX_CALLS = 2000

// Synchronous, so pi waits for the capture before the tool runs. ckpt
// exits 0 and prints nothing; whatever happens, nothing here may throw,
// or pi would block the tool.
function send(event: Record<string, unknown>, ctx: any) {
  try {
    const body = JSON.stringify({ ...event, cwd: ctx?.cwd ?? process.cwd(), session: SESSION })
    spawnSync(CKPT, ["hook", "pi"], { input: body, stdio: ["pipe", "ignore", "ignore"], timeout: 120000 })
  } catch {}
}

function pick(input: any) {
  return { path: input?.path, command: input?.command, pattern: input?.pattern }
}

function text(content: any): string {
  if (typeof content === "string") return content.slice(0, MAX_TEXT)
  if (!Array.isArray(content)) return ""
  return content
    .filter((c: any) => c?.type === "text" && typeof c.text === "string")
    .map((c: any) => c.text)
    .join("\n")
    .slice(0, MAX_TEXT)
}

// The run's messages, cut down to what ckpt shows: texts, and each tool
// call's name, path or command, and whether it failed.
function brief(messages: any) {
  const out: any[] = []
  let calls = 0
  for (const m of Array.isArray(messages) ? messages : []) {
    if (m?.role === "toolResult") {
      out.push({ role: m.role, id: m.toolCallId, isError: !!m.isError })
      continue
    }
    const parts = Array.isArray(m?.content) ? m.content : []
    const called = parts
      .filter((c: any) => c?.type === "toolCall" && calls++ < MAX_CALLS)
      .map((c: any) => ({ id: c.id, name: c.name, input: pick(c.arguments) }))
    out.push({ role: m?.role, text: text(m?.content), calls: called })
  }
  return out
}

export default function (pi: any) {
  pi.on("input", async (event: any, ctx: any) => {
    send({ event: "input", text: String(event?.text ?? "") }, ctx)
  })
  pi.on("tool_call", async (event: any, ctx: any) => {
    if (!FILE_TOOLS.has(event?.toolName) && !SWEPT_TOOLS.has(event?.toolName)) return
    send({ event: "tool_call", tool: event.toolName, callId: event.toolCallId, input: pick(event.input) }, ctx)
  })
  pi.on("tool_result", async (event: any, ctx: any) => {
    if (!FILE_TOOLS.has(event?.toolName) && !SWEPT_TOOLS.has(event?.toolName)) return
    send({ event: "tool_result", tool: event.toolName, callId: event.toolCallId, input: pick(event.input), isError: !!event.isError }, ctx)
  })
  // The end of the prompt's turn: a command left running may have written
  // since; the run's messages say what the turn said.
  pi.on("agent_end", async (event: any, ctx: any) => {
    let messages: any[] = []
    try {
      messages = brief(event?.messages)
    } catch {}
    send({ event: "agent_end", messages }, ctx)
  })
}
`

// piExtensionFirst is the extension an earlier install wrote, still
// recognised as ckpt's, so that install replaces it and uninstall removes
// it.
const piExtensionFirst = `// ckpt: keeps what pi's write, edit and bash tools are about to change, turn
// by turn, so that ` + "`ckpt`" + ` can show and rewind it. Written by ` + "`ckpt install pi`" + `;
// ` + "`ckpt uninstall pi`" + ` removes it (an edited copy is left alone).
import { spawnSync } from "node:child_process"

const CKPT = %s
const FILE_TOOLS = new Set(["write", "edit"])
// The shell says nothing of what it writes: ckpt sweeps the tree around it.
const SWEPT_TOOLS = new Set(["bash"])
// pi's events name no session: one per pi process.
const SESSION = process.pid + "-" + Date.now()

// Synchronous, so pi waits for the capture before the tool runs. ckpt
// exits 0 and prints nothing; whatever happens, nothing here may throw,
// or pi would block the tool.
function send(event: Record<string, unknown>, ctx: any) {
  try {
    const body = JSON.stringify({ ...event, cwd: ctx?.cwd ?? process.cwd(), session: SESSION })
    spawnSync(CKPT, ["hook", "pi"], { input: body, stdio: ["pipe", "ignore", "ignore"], timeout: 120000 })
  } catch {}
}

function pick(input: any) {
  return { path: input?.path, command: input?.command }
}

export default function (pi: any) {
  pi.on("input", async (event: any, ctx: any) => {
    send({ event: "input", text: String(event?.text ?? "") }, ctx)
  })
  pi.on("tool_call", async (event: any, ctx: any) => {
    if (!FILE_TOOLS.has(event?.toolName) && !SWEPT_TOOLS.has(event?.toolName)) return
    send({ event: "tool_call", tool: event.toolName, callId: event.toolCallId, input: pick(event.input) }, ctx)
  })
  pi.on("tool_result", async (event: any, ctx: any) => {
    if (!FILE_TOOLS.has(event?.toolName) && !SWEPT_TOOLS.has(event?.toolName)) return
    send({ event: "tool_result", tool: event.toolName, callId: event.toolCallId, input: pick(event.input), isError: !!event.isError }, ctx)
  })
  // The end of the prompt's turn: a command left running may have written since.
  pi.on("agent_end", async (_event: any, ctx: any) => {
    send({ event: "agent_end" }, ctx)
  })
}
`

func renderPiExtension(exe string) []byte { return renderTemplate(piExtension)(exe) }

// renderTemplate renders an extension or plugin template for the binary
// exe, given as a JSON (hence JavaScript) string literal.
func renderTemplate(tmpl string) func(exe string) []byte {
	return func(exe string) []byte {
		lit, _ := json.Marshal(exe)
		return []byte(fmt.Sprintf(tmpl, lit))
	}
}

// findConstCKPT reads the binary out of a `const CKPT = "…"` line.
func findConstCKPT(data []byte) (string, bool) {
	for _, line := range strings.Split(string(data), "\n") {
		if lit, ok := strings.CutPrefix(line, "const CKPT = "); ok {
			var exe string
			if json.Unmarshal([]byte(lit), &exe) != nil || exe == "" {
				return "", false
			}
			return exe, true
		}
	}
	return "", false
}
