package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

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

// pluginSourceNode is the plugin before it forwarded the conversation.
const pluginSourceNode = `// ckpt: keeps what opencode's file tools are about to change, turn by turn,
// so that ` + "`ckpt`" + ` can show and rewind it. Written by ` + "`ckpt install opencode`" + `;
// ` + "`ckpt uninstall opencode`" + ` removes it (an edited copy is left alone).
import { spawn } from "node:child_process"

const CKPT = %s
const FILE_TOOLS = new Set(["write", "edit", "multiedit", "patch", "apply_patch"])
// The shell says nothing of what it writes: ckpt sweeps the tree around it.
const SWEPT_TOOLS = new Set(["bash"])

export const CkptPlugin = async ({ $, directory }) => {
  const pending = new Map()
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
      await send({ event: "chat.message", sessionID: input?.sessionID, messageID: input?.messageID ?? output?.message?.id, text })
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
    // The end of a turn: a command left running may have written since.
    event: async ({ event }) => {
      if (event?.type === "session.idle") await send({ event: "session.idle", sessionID: event.properties?.sessionID })
    },
  }
}
`

// Earlier plugin files install wrote, still recognised as ckpt's, so that
// install replaces them and uninstall removes them.
var pastPluginSources = []string{pluginSourceFirst, pluginSourceShell, pluginSourceNode}

const pluginSourceFirst = `// ckpt: keeps what opencode's file tools are about to change, turn by turn,
// so that ` + "`ckpt`" + ` can show and rewind it. Written by ` + "`ckpt install opencode`" + `;
// ` + "`ckpt uninstall opencode`" + ` removes it (an edited copy is left alone).
const CKPT = %s
const FILE_TOOLS = new Set(["write", "edit", "multiedit", "patch", "apply_patch"])

export const CkptPlugin = async ({ $, directory }) => {
  const pending = new Map()
  // ckpt exits 0 and prints nothing; a failure here must never stop a tool.
  const send = async (event) => {
    try {
      const body = new Response(JSON.stringify({ directory, ...event }))
      await $` + "`${CKPT} hook opencode < ${body}`" + `.quiet().nothrow()
    } catch {}
  }
  return {
    "chat.message": async (input, output) => {
      const text = (output?.parts ?? [])
        .filter((p) => p?.type === "text" && !p.synthetic)
        .map((p) => p.text)
        .join("\n")
      await send({ event: "chat.message", sessionID: input?.sessionID, messageID: input?.messageID ?? output?.message?.id, text })
    },
    "tool.execute.before": async (input, output) => {
      if (!FILE_TOOLS.has(input?.tool)) return
      pending.set(input.callID, output?.args)
      await send({ event: "tool.execute.before", sessionID: input.sessionID, callID: input.callID, tool: input.tool, args: output?.args })
    },
    "tool.execute.after": async (input) => {
      if (!FILE_TOOLS.has(input?.tool)) return
      const args = input.args ?? pending.get(input.callID)
      pending.delete(input.callID)
      await send({ event: "tool.execute.after", sessionID: input.sessionID, callID: input.callID, tool: input.tool, args })
    },
  }
}
`

const pluginSourceShell = `// ckpt: keeps what opencode's file tools are about to change, turn by turn,
// so that ` + "`ckpt`" + ` can show and rewind it. Written by ` + "`ckpt install opencode`" + `;
// ` + "`ckpt uninstall opencode`" + ` removes it (an edited copy is left alone).
const CKPT = %s
const FILE_TOOLS = new Set(["write", "edit", "multiedit", "patch", "apply_patch"])
// The shell says nothing of what it writes: ckpt sweeps the tree around it.
const SWEPT_TOOLS = new Set(["bash"])

export const CkptPlugin = async ({ $, directory }) => {
  const pending = new Map()
  // ckpt exits 0 and prints nothing; a failure here must never stop a tool.
  const send = async (event) => {
    try {
      const body = new Response(JSON.stringify({ directory, ...event }))
      await $` + "`${CKPT} hook opencode < ${body}`" + `.quiet().nothrow()
    } catch {}
  }
  return {
    "chat.message": async (input, output) => {
      const text = (output?.parts ?? [])
        .filter((p) => p?.type === "text" && !p.synthetic)
        .map((p) => p.text)
        .join("\n")
      await send({ event: "chat.message", sessionID: input?.sessionID, messageID: input?.messageID ?? output?.message?.id, text })
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
    // The end of a turn: a command left running may have written since.
    event: async ({ event }) => {
      if (event?.type === "session.idle") await send({ event: "session.idle", sessionID: event.properties?.sessionID })
    },
  }
}
`

// renderPlugin is the plugin file for the ckpt binary at exe.
func renderPlugin(exe string) []byte {
	lit, _ := json.Marshal(exe)
	return []byte(fmt.Sprintf(pluginSource, lit))
}

// isOurPlugin reports whether data is exactly a plugin file install wrote,
// for whatever binary path.
func isOurPlugin(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		if lit, ok := strings.CutPrefix(line, "const CKPT = "); ok {
			var exe string
			if json.Unmarshal([]byte(lit), &exe) != nil {
				return false
			}
			if bytes.Equal(data, renderPlugin(exe)) {
				return true
			}
			lit, _ := json.Marshal(exe)
			for _, src := range pastPluginSources {
				if bytes.Equal(data, []byte(fmt.Sprintf(src, lit))) {
					return true
				}
			}
			return false
		}
	}
	return false
}

// pluginInstaller writes and removes ckpt's opencode plugin file.
type pluginInstaller struct{ file string }

func (p pluginInstaller) path() string { return p.file }

func (p pluginInstaller) add(name string, old []byte, existed bool, exe string) ([]byte, error) {
	if existed && !isOurPlugin(old) {
		return nil, fmt.Errorf("exists and was not written by ckpt install; left alone")
	}
	return renderPlugin(exe), nil
}

func (p pluginInstaller) remove(name string, old []byte, exe string) ([]byte, bool, error) {
	if !isOurPlugin(old) {
		return nil, false, fmt.Errorf("was not written by ckpt install (or was edited since); left alone")
	}
	return nil, false, nil
}

func (p pluginInstaller) exes(_ string, data []byte, _ string) []string {
	for _, line := range strings.Split(string(data), "\n") {
		if lit, ok := strings.CutPrefix(line, "const CKPT = "); ok && isOurPlugin(data) {
			var exe string
			if json.Unmarshal([]byte(lit), &exe) == nil && exe != "" {
				return []string{exe}
			}
		}
	}
	return nil
}

func renderKiloPlugin(exe string) []byte { return kiloOf(renderPlugin)(exe) }

// kiloOf is an opencode plugin's rendering, made Kilo's.
func kiloOf(render func(string) []byte) func(string) []byte {
	r := strings.NewReplacer("hook opencode", "hook kilo", `"hook", "opencode"`, `"hook", "kilo"`, "install opencode", "install kilo", "uninstall opencode", "uninstall kilo",
		"opencode's file tools", "Kilo's file tools", "undefined where opencode runs", "undefined where Kilo runs")
	return func(exe string) []byte { return []byte(r.Replace(string(render(exe)))) }
}
