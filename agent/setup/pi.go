package setup

import (
	"encoding/json"
	"fmt"
	"strings"
)

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

// pastExtensionFirst is the pastHash of the extension an earlier install
// wrote (see testdata/past/), before it sent what each turn said.
const pastExtensionFirst = "1c23b0b6453da29042e3ec0ef0f5c4957d78eb19e35d734c65c4e62d9ba2a4e1"

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
