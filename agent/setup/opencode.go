package setup

import "strings"

// pluginSource is the plugin file install writes, with the ckpt binary's
// path as a JSON (hence JavaScript) string literal. The file is recognised
// as ckpt's only when it is exactly this text for some path.
const pluginSource = `// ckpt: keeps what opencode's file tools are about to change, turn by turn,
// so that ` + "`ckpt`" + ` can show and rewind it, and what each turn said. Written by
// ` + "`ckpt install opencode`" + `; ` + "`ckpt uninstall opencode`" + ` removes it (an edited copy is
// left alone).
import { spawn } from "node:child_process"

const CKPT = %s
const FILE_TOOLS = new Set(["write", "edit", "multiedit", "patch", "apply_patch"])
// The shell says nothing of what it writes: ckpt sweeps the tree around it.
const SWEPT_TOOLS = new Set(["bash"])
// The most of a text and of the calls sent to ckpt (it keeps no more).
const MAX_TEXT = 65536
const MAX_CALLS = 2000

// What a tool call names: its file, command or search, and of a patch
// only the lines that name its files.
function pick(args) {
  const out = {}
  for (const k of ["filePath", "path", "command", "pattern", "url", "query"]) {
    if (typeof args?.[k] === "string") out[k] = args[k].slice(0, 4096)
  }
  if (typeof args?.patchText === "string") {
    out.patchText = args.patchText
      .split("\n")
      .filter((l) => /^\s*\*\*\* (Add File|Update File|Delete File|Move to): /.test(l))
      .join("\n")
  }
  return out
}

export const CkptPlugin = async ({ $, directory }) => {
  const pending = new Map()
  // What each session's turn said so far: its prompt, the role of each
  // message, its text parts and its tool calls, by id in the order they
  // began. session.idle sends it and starts afresh.
  const talks = new Map()
  const talk = (id) => {
    if (!talks.has(id)) talks.set(id, { prompt: "", roles: new Map(), texts: new Map(), calls: new Map() })
    return talks.get(id)
  }
  const said = (t) => {
    if (!t) return {}
    let reply = ""
    for (const p of t.texts.values()) {
      if (t.roles.get(p.messageID) !== "user" && p.text.trim() !== "") reply = p.text
    }
    const calls = [...t.calls.values()].slice(0, MAX_CALLS)
    return { prompt: t.prompt, reply: reply.slice(0, MAX_TEXT), calls }
  }
  const note = (part) => {
    if (!part?.sessionID) return
    const t = talk(part.sessionID)
    if (part.type === "text" && !part.synthetic && typeof part.text === "string") {
      t.texts.set(part.id, { messageID: part.messageID, text: part.text })
    } else if (part.type === "tool" && typeof part.tool === "string") {
      t.calls.set(part.callID ?? part.id, { id: part.callID, tool: part.tool, args: pick(part.state?.input), status: part.state?.status })
    }
  }
  // ckpt exits 0 and prints nothing; a failure here must never stop a tool.
  // $ is Bun's shell, and undefined where opencode runs outside Bun: then
  // node:child_process does the same.
  const send = async (event) => {
    const body = JSON.stringify({ directory, ...event })
    try {
      if (typeof $ === "function") {
        await $` + "`${CKPT} hook opencode < ${new Response(body)}`" + `.quiet().nothrow()
        return
      }
      await new Promise((resolve) => {
        const child = spawn(CKPT, ["hook", "opencode"], { stdio: ["pipe", "ignore", "ignore"] })
        child.on("error", resolve)
        child.on("close", resolve)
        child.stdin.on("error", () => {})
        child.stdin.end(body)
      })
    } catch {}
  }
  return {
    "chat.message": async (input, output) => {
      const text = (output?.parts ?? [])
        .filter((p) => p?.type === "text" && !p.synthetic)
        .map((p) => p.text)
        .join("\n")
      const messageID = input?.messageID ?? output?.message?.id
      try {
        const t = talk(input?.sessionID)
        t.prompt = String(text).slice(0, MAX_TEXT)
        t.roles.set(messageID, "user")
      } catch {}
      await send({ event: "chat.message", sessionID: input?.sessionID, messageID, text })
    },
    "tool.execute.before": async (input, output) => {
      if (!FILE_TOOLS.has(input?.tool) && !SWEPT_TOOLS.has(input?.tool)) return
      pending.set(input.callID, output?.args)
      await send({ event: "tool.execute.before", sessionID: input.sessionID, callID: input.callID, tool: input.tool, args: output?.args })
    },
    "tool.execute.after": async (input) => {
      if (!FILE_TOOLS.has(input?.tool) && !SWEPT_TOOLS.has(input?.tool)) return
      const args = input.args ?? pending.get(input.callID)
      pending.delete(input.callID)
      await send({ event: "tool.execute.after", sessionID: input.sessionID, callID: input.callID, tool: input.tool, args })
    },
    event: async ({ event }) => {
      try {
        const p = event?.properties
        if (event?.type === "message.updated" && p?.info?.sessionID) talk(p.info.sessionID).roles.set(p.info.id, p.info.role)
        if (event?.type === "message.part.updated") note(p?.part)
      } catch {}
      // The end of a turn: a command left running may have written since,
      // and what the turn said is known.
      if (event?.type === "session.idle") {
        const id = event.properties?.sessionID
        let t = {}
        try {
          t = said(talks.get(id))
          talks.delete(id)
        } catch {}
        await send({ event: "session.idle", sessionID: id, ...t })
      }
    },
  }
}
`

// Earlier plugin files install wrote (see testdata/past/), by their
// pastHash: the first, for file tools only; then with the shell swept;
// then run outside Bun too (as Kilo's).
const (
	pastPluginFirst = "c1c34786d24be5092f9787632a2d942dc04fcf0d4dc29eb20230df64a8de6db0"
	pastPluginShell = "067e0d579b14a6a30eef1b5fc07472a463d9e33ec4cee10b79f122fbf0fca6e1"
	pastPluginNode  = "6f25d2cd2f4221de2eb8d8f8e721d6022efe7374b3f4d74eacd9125724309913"
	pastKiloNode    = "489d3e273c7ff4bbaa7096247e66f1a22e6a90ecaa32d91f10c4ee13fab6f8c0"
)

// renderPlugin is the plugin file for the ckpt binary at exe.
func renderPlugin(exe string) []byte { return renderTemplate(pluginSource)(exe) }

// renderKiloPlugin is opencode's plugin file, made Kilo's.
func renderKiloPlugin(exe string) []byte {
	return []byte(kiloPlugin.Replace(string(renderPlugin(exe))))
}

// kiloPlugin makes an opencode plugin Kilo's.
var kiloPlugin = strings.NewReplacer("hook opencode", "hook kilo", `"hook", "opencode"`, `"hook", "kilo"`, "install opencode", "install kilo", "uninstall opencode", "uninstall kilo",
	"opencode's file tools", "Kilo's file tools", "undefined where opencode runs", "undefined where Kilo runs")
