// Package harness runs the real coding agents — Claude Code, Codex CLI,
// Gemini CLI and opencode — headless against scripted mock model servers on
// 127.0.0.1, with ckpt's hooks installed by `ckpt install`, and checks that
// ckpt's log, show, rewind and undo are exact afterwards.
//
// # Running it
//
// scripts/real-agents.sh installs the pinned agent versions from npm into a
// cache ($CKPT_AGENTS_CACHE, default ~/.cache/ckpt-agents), builds ckpt, and
// runs `go test ./harness -run TestRealAgents` with CKPT_REAL_AGENTS=1 and
// CKPT_AGENT_<NAME> naming each agent's executable. Without
// CKPT_REAL_AGENTS the test skips, so `go test ./...` stays fast and offline.
// .ci/run calls the script.
//
// # The mock servers
//
// Each agent talks to a mock of its model API (Anthropic Messages streamed;
// OpenAI Responses streamed; the Gemini API; an OpenAI-compatible chat
// API). A mock plays one script of steps — a file write, an edit, a shell
// command — as the agent's own tool calls, choosing the next step from the
// conversation it is sent (how many tool results it holds), never from how
// many requests it has seen: agents make side requests (titles, token
// counts) and retry. Requests without the agent's tools get a short text
// answer. Every loop is bounded: a mock stops scripting tool calls after a
// fixed number of requests, and each agent runs under a timeout.
//
// # Hook payloads
//
// ckpt's hooks run through a recording proxy (this test binary, copied in
// place of ckpt after `ckpt install`), which keeps each raw event and the
// project's files at that moment. With CKPT_HARNESS_RECORD=1 the harness
// prints the raw payloads and writes them, as replayable scenarios
// (package ckpt/agent/hooktest), to testdata/hooks/AGENT/recorded.jsonl.
//
// # The conversation
//
// For every agent whose conversation ckpt can show (all but Cline, whose
// one-shot mode hands hooks no prompt), the harness checks that
// `ckpt show TURN --conversation` names the prompt and the mock's final
// reply and lists the script's tool calls in order, each with its path or
// command and ok: read from the transcript the agent kept in the run's
// home (Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI), or from
// what ckpt's plugin forwarded (opencode, pi). With CKPT_HARNESS_RECORD=1
// it also keeps the transcript, trimmed, as
// transcript/testdata/AGENT-real.jsonl.
package harness
