package setup

// Agents' JSON configs are edited as text, surgically, so that everything
// ckpt does not touch keeps its bytes: the user's keys, their order, their
// spacing. Each insertion takes one of three forms, and removal recognises
// each by its shape and takes out exactly what was put in:
//
//   - after the last item of a non-empty object or array: "," plus the
//     whitespace that preceded that item, then the new item. Removed as the
//     span from the end of the item before it to its own end.
//   - into an empty object or array: the item right after the opening
//     bracket, with no whitespace. Removed as the item alone.
//   - a container ckpt creates (the "hooks" object, an event's array, the
//     whole file) is laid out on lines, or with spaces in a one-line file:
//     its first item never directly follows the bracket.
//     When the last ckpt item leaves it, the container goes too, in the
//     form it was inserted in; a created file is deleted.
//
// Uninstall removes ckpt's entries newest first, so every removal meets the
// text as its insertion left it, and install then uninstall gives back the
// original bytes. Edits made by hand in between are kept (only ckpt's
// entries go), though the whitespace around them may differ.
//
// A config its agent reads as JSON with comments and trailing commas
// (Gemini CLI's settings.json) is parsed from a copy in which hujson has
// turned each comment and trailing comma into spaces: every byte offset is
// the same in both, so the edits land on the original bytes and the
// comments stay where they were. ckpt-hook, which an agent starts on
// every tool call and which never edits a config, does not link this
// package, nor hujson with it.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/ckpt-dev/ckpt/agent"
)

// standardize blanks the comments and trailing commas of a copy of b, a
// JSON with comments, keeping every byte offset.
func standardize(b []byte) ([]byte, error) { return hujson.Standardize(bytes.Clone(b)) }

// hookSpec is one hook entry ckpt adds to a Claude-shaped config:
// {"hooks": {EVENT: [{"matcher": M, "hooks": [{"name": N, "type": "command",
// "command": C, "timeout": T}]}]}}.
type hookSpec struct {
	event   string
	matcher string // empty: none
	name    string // Gemini CLI names its hooks
	timeout int    // the agent's unit; 0: none
}

// jsonInstaller edits a Claude-shaped hooks config.
type jsonInstaller struct {
	file  string
	hooks []hookSpec
	// jsonc: the agent allows comments and trailing commas in the file.
	jsonc bool
	// flat: each event's array holds the hook objects themselves, with no
	// matcher groups around them (Cursor, Windsurf): {"hooks": {EVENT:
	// [{"command": C}]}}.
	flat bool
	// version, when not 0, is the "version" a file install creates
	// starts with (Cursor's hooks.json wants one).
	version int
}

// flatHookJSON is one hook of a flat config.
type flatHookJSON struct {
	Command string `json:"command"`
}

// parse is parseConfig, for this installer's dialect.
func (j jsonInstaller) parse(text []byte) (*jnode, error) {
	if !j.jsonc {
		return parseConfig(text)
	}
	std, err := standardize(text)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON, even allowing comments and trailing commas (%v)", err)
	}
	return parseConfig(std)
}

func (j jsonInstaller) path() string { return j.file }

type hookCmdJSON struct {
	Name    string `json:"name,omitempty"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

type hookGroupJSON struct {
	Matcher string        `json:"matcher,omitempty"`
	Hooks   []hookCmdJSON `json:"hooks"`
}

func (j jsonInstaller) add(agentName string, old []byte, existed bool, exe string) ([]byte, error) {
	cmd := HookCommand(exe, agentName)
	text := old
	if existed {
		if _, err := j.parse(old); err != nil {
			return nil, err
		}
	}
	st := newStyle(old)
	for _, h := range j.hooks {
		group := st.value(hookGroupJSON{Matcher: h.matcher, Hooks: []hookCmdJSON{{Name: h.name, Type: "command", Command: cmd, Timeout: h.timeout}}})
		if j.flat {
			group = st.value(flatHookJSON{Command: cmd})
		}
		if text == nil {
			// A new file: every container is created, laid out on lines.
			arr := st.block('[', "", group, 2)
			hooks := st.block('{', h.event, arr, 1)
			text = []byte(st.block('{', "hooks", hooks, 0) + st.nl)
			if j.version != 0 {
				text = []byte("{" + st.nl + st.unit + j.versionMember() + "," + st.nl + st.unit + `"hooks": ` + hooks + st.nl + "}" + st.nl)
			}
			continue
		}
		root, err := j.parse(text)
		if err != nil {
			return nil, err
		}
		hooks := root.member("hooks")
		if hooks == nil {
			arr := st.block('[', "", group, 2)
			text = insertItem(text, root, `"hooks": `+st.block('{', h.event, arr, 1))
			continue
		}
		if hooks.kind != '{' {
			return nil, fmt.Errorf(`"hooks" is not an object`)
		}
		arr := hooks.member(h.event)
		if arr == nil {
			text = insertItem(text, hooks, quote(h.event)+": "+st.block('[', "", group, hooks.depth()+1))
			continue
		}
		if arr.kind != '[' {
			return nil, fmt.Errorf(`"hooks.%s" is not an array`, h.event)
		}
		if len(j.ourHooks(text, arr, agentName, cmd)) > 0 {
			text = j.repoint(text, h.event, agentName, cmd)
			continue
		}
		text = insertItem(text, arr, st.indent(group, arr.depth()+1))
	}
	return text, nil
}

// repoint makes ckpt's hooks in event's array (there is at least one)
// one hook running cmd: the first stays where it is with cmd as its
// command, the others go, newest first, as uninstall would take them out.
// Only the command string's bytes change in the one kept.
func (j jsonInstaller) repoint(text []byte, event, agentName, cmd string) []byte {
	for {
		root, err := j.parse(text)
		if err != nil {
			return text // checked by the caller; every edit keeps it valid
		}
		arr := root.member("hooks").member(event)
		ours := j.ourHooks(text, arr, agentName, cmd)
		if len(ours) == 1 {
			c := ours[0].member("command")
			if s, _ := stringValue(text, c); s != cmd {
				text = splice(text, c.start, c.end, jsonString(cmd))
			}
			return text
		}
		// The last of them goes, with its group when the group holds
		// nothing else and is not the first one's.
		h := ours[len(ours)-1]
		target := h
		if g := h.parent.parent; g != ours[0].parent.parent && allOurs(text, h.parent, agentName, cmd) {
			target = g
		}
		text, _ = removeNode(text, target)
	}
}

func (j jsonInstaller) versionMember() string { return fmt.Sprintf(`"version": %d`, j.version) }

// jsonString is s as a JSON string, written as install writes values
// (HTML characters unescaped).
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func (j jsonInstaller) remove(agentName string, old []byte, exe string) ([]byte, bool, error) {
	cmd := HookCommand(exe, agentName)
	if _, err := j.parse(old); err != nil {
		return nil, false, err
	}
	text, found := old, false
	for {
		root, err := j.parse(text)
		if err != nil {
			return nil, false, fmt.Errorf("internal error: removing ckpt's hooks broke the JSON: %w", err)
		}
		target := j.lastOurs(text, root, agentName, cmd)
		if target == nil {
			break
		}
		found = true
		var gone bool
		text, gone = removeNode(text, target)
		if gone {
			return nil, false, nil
		}
		if j.version != 0 {
			// All that is left of a file install created. (A file that
			// held exactly this before install goes too: it said nothing.)
			st := newStyle(text)
			if string(text) == "{"+st.nl+st.unit+j.versionMember()+st.nl+"}"+st.nl {
				return nil, false, nil
			}
		}
	}
	if !found {
		return nil, false, fmt.Errorf("%w (looked for the command %s, or the same for ckpt elsewhere)", errNotInstalled, cmd)
	}
	return text, true, nil
}

// lastOurs finds the ckpt entry to remove next, newest first: the last
// event of specs holding one, the last matching group in its array. The
// whole group goes when it holds nothing but ckpt's hooks; otherwise only
// ckpt's hook inside it.
func (j jsonInstaller) lastOurs(text []byte, root *jnode, agentName, cmd string) *jnode {
	specs := j.hooks
	hooks := root.member("hooks")
	if hooks == nil || hooks.kind != '{' {
		return nil
	}
	for i := len(specs) - 1; i >= 0; i-- {
		arr := hooks.member(specs[i].event)
		if arr == nil || arr.kind != '[' {
			continue
		}
		ours := j.ourHooks(text, arr, agentName, cmd)
		if len(ours) == 0 {
			continue
		}
		h := ours[len(ours)-1]
		if j.flat {
			return h
		}
		if allOurs(text, h.parent, agentName, cmd) {
			return h.parent.parent // the group
		}
		return h
	}
	return nil
}

// allOurs reports whether every hook in a group's list is ckpt's.
func allOurs(text []byte, list *jnode, agentName, cmd string) bool {
	for _, k := range list.kids {
		if !isOurHook(text, k, agentName, cmd) {
			return false
		}
	}
	return true
}

// ourHooks lists the hook objects in an event's array that are ckpt's
// (see isCkptHook; cmd is the command for the binary at work), in file
// order.
func (j jsonInstaller) ourHooks(text []byte, arr *jnode, agentName, cmd string) []*jnode {
	var out []*jnode
	if j.flat {
		for _, h := range arr.kids {
			if isOurHook(text, h, agentName, cmd) {
				out = append(out, h)
			}
		}
		return out
	}
	for _, g := range arr.kids {
		if g.kind != '{' {
			continue
		}
		list := g.member("hooks")
		if list == nil || list.kind != '[' {
			continue
		}
		for _, h := range list.kids {
			if isOurHook(text, h, agentName, cmd) {
				out = append(out, h)
			}
		}
	}
	return out
}

func isOurHook(text []byte, h *jnode, agentName, cmd string) bool {
	if h.kind != '{' {
		return false
	}
	s, ok := stringValue(text, h.member("command"))
	return ok && (s == cmd || isCkptHook(s, agentName, ""))
}

// stringValue decodes a string node.
func stringValue(text []byte, n *jnode) (string, bool) {
	if n == nil || n.kind != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(text[n.start:n.end], &s) != nil {
		return "", false
	}
	return s, true
}

// insertItem adds item (a member `"k": v` for objects, a value for arrays)
// as the last item of container c.
func insertItem(text []byte, c *jnode, item string) []byte {
	if len(c.kids) == 0 {
		return splice(text, c.start+1, c.start+1, item)
	}
	last := c.kids[len(c.kids)-1]
	ws := leadingSpace(text, last.itemStart())
	return splice(text, last.end, last.end, ","+ws+item)
}

// removeNode takes item n out of text in the form it was inserted in (see
// the file comment). gone reports that the whole document goes.
func removeNode(text []byte, n *jnode) (out []byte, gone bool) {
	p := n.parent
	if p == nil {
		return nil, true
	}
	i := 0
	for p.kids[i] != n {
		i++
	}
	switch {
	case i > 0:
		return splice(text, p.kids[i-1].end, n.end, ""), false
	case i < len(p.kids)-1:
		return splice(text, n.itemStart(), p.kids[i+1].itemStart(), ""), false
	case n.itemStart() == p.start+1:
		return splice(text, n.itemStart(), n.end, ""), false
	default:
		return removeNode(text, p)
	}
}

func splice(text []byte, from, to int, s string) []byte {
	out := make([]byte, 0, len(text)-(to-from)+len(s))
	out = append(out, text[:from]...)
	out = append(out, s...)
	return append(out, text[to:]...)
}

// leadingSpace is the whitespace right before offset i.
func leadingSpace(text []byte, i int) string {
	j := i
	for j > 0 && agent.JSONSpace(text[j-1]) {
		j--
	}
	return string(text[j:i])
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// style is the layout of new text: the file's newline and indent unit, or
// compact for a file written on one line.
type style struct {
	nl, unit string
	compact  bool
}

func newStyle(text []byte) style {
	st := style{nl: "\n", unit: "  "}
	if len(bytes.TrimSpace(text)) > 0 && !bytes.ContainsAny(text, "\r\n") {
		st.compact = true
	}
	if bytes.Contains(text, []byte("\r\n")) {
		st.nl = "\r\n"
	}
	for i := 0; i+1 < len(text); i++ {
		if text[i] != '\n' {
			continue
		}
		j := i + 1
		for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
			j++
		}
		if j > i+1 {
			st.unit = string(text[i+1 : j])
			break
		}
	}
	return st
}

// value is v as indented JSON at depth 0, HTML characters unescaped.
func (st style) value(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if !st.compact {
		enc.SetIndent("", st.unit)
	}
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// indent lays a depth-0 value out for depth d (its first line follows a
// key or a bracket and is not indented).
func (st style) indent(v string, d int) string {
	return strings.ReplaceAll(v, "\n", st.nl+strings.Repeat(st.unit, d))
}

// block is a container created at depth d holding one item on its own line:
// an object member `"key": item`, or (key empty, open '[') an array element.
func (st style) block(open byte, key, item string, d int) string {
	close := byte('}')
	if open == '[' {
		close = ']'
	}
	in := st.nl + strings.Repeat(st.unit, d+1)
	if key != "" {
		item = quote(key) + ": " + item
	}
	if st.compact {
		// A space, never nothing, after the bracket: that is how removal
		// tells a created container from an existing empty one.
		return string(open) + " " + item + " " + string(close)
	}
	if open == '[' {
		item = st.indent(item, d+1)
	}
	return string(open) + in + item + st.nl + strings.Repeat(st.unit, d) + string(close)
}

// jnode is a JSON value with its byte span, for editing in place.
type jnode struct {
	kind       byte // '{', '[', '"', or 0 for numbers and literals
	start, end int  // the value's bytes: text[start:end]
	key        string
	keyStart   int // for an object member: where its key starts
	parent     *jnode
	kids       []*jnode // elements, or member values in order
}

// itemStart is where the item begins: its key for an object member.
func (n *jnode) itemStart() int {
	if n.parent != nil && n.parent.kind == '{' {
		return n.keyStart
	}
	return n.start
}

// member is the object's value for key (the last, as JSON readers do).
func (n *jnode) member(key string) *jnode {
	for i := len(n.kids) - 1; i >= 0; i-- {
		if n.kids[i].key == key {
			return n.kids[i]
		}
	}
	return nil
}

func (n *jnode) depth() int {
	d := 0
	for p := n.parent; p != nil; p = p.parent {
		d++
	}
	return d
}

// parseConfig checks text is a JSON object and returns its tree; its errors
// say what is wrong and where, for a message naming the file.
func parseConfig(text []byte) (*jnode, error) {
	if !json.Valid(text) {
		if hasComments(text) {
			return nil, errors.New("has comments, which ckpt cannot keep when it edits the file; remove them, or add the hooks by hand")
		}
		var v any
		err := json.Unmarshal(text, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(text, int(se.Offset))
			return nil, fmt.Errorf("not valid JSON (line %d, column %d: %v)", line, col, se)
		}
		if err == nil {
			err = errors.New("invalid")
		}
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	p := &jparser{b: text}
	root, err := p.parse()
	if err != nil {
		return nil, err
	}
	if root.kind != '{' {
		return nil, errors.New("is not a JSON object")
	}
	return root, nil
}

func position(text []byte, off int) (line, col int) {
	off = min(off, len(text))
	line = 1 + bytes.Count(text[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(text[:off], '\n')
	return line, col
}

// hasComments reports a // or /* outside strings.
func hasComments(text []byte) bool {
	in := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && c == '/' && i+1 < len(text) && (text[i+1] == '/' || text[i+1] == '*'):
			return true
		}
	}
	return false
}

// jparser builds a jnode tree from text already checked by json.Valid.
type jparser struct {
	b []byte
	i int
}

var errTruncated = errors.New("unexpected end of JSON")

func (p *jparser) parse() (n *jnode, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = nil, errTruncated
		}
	}()
	n = p.value(nil)
	return n, nil
}

func (p *jparser) ws() {
	for p.i < len(p.b) && agent.JSONSpace(p.b[p.i]) {
		p.i++
	}
}

func (p *jparser) peek() byte {
	if p.i >= len(p.b) {
		panic(errTruncated)
	}
	return p.b[p.i]
}

func (p *jparser) value(parent *jnode) *jnode {
	p.ws()
	n := &jnode{start: p.i, parent: parent}
	switch c := p.peek(); c {
	case '{', '[':
		n.kind = c
		close := byte('}')
		if c == '[' {
			close = ']'
		}
		p.i++
		p.ws()
		if p.peek() == close {
			p.i++
			break
		}
		for {
			p.ws()
			keyStart, key := p.i, ""
			if c == '{' {
				p.str()
				_ = json.Unmarshal(p.b[keyStart:p.i], &key)
				p.ws()
				p.i++ // ':'
			}
			kid := p.value(n)
			kid.key, kid.keyStart = key, keyStart
			n.kids = append(n.kids, kid)
			p.ws()
			sep := p.peek()
			p.i++
			if sep == close {
				break
			}
		}
	case '"':
		n.kind = '"'
		p.str()
	default:
		for p.i < len(p.b) && !agent.JSONSpace(p.b[p.i]) && !strings.ContainsRune(",]}", rune(p.b[p.i])) {
			p.i++
		}
	}
	n.end = p.i
	return n
}

func (p *jparser) str() {
	p.i++ // opening quote
	for {
		switch p.peek() {
		case '\\':
			p.i += 2
		case '"':
			p.i++
			return
		default:
			p.i++
		}
	}
}

// exes lists the binaries ckpt's hooks in a Claude-shaped config run.
func (j jsonInstaller) exes(agentName string, data []byte, exe string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(cmd string) {
		if isCkptHook(cmd, agentName, exe) {
			if p, _ := hookCommandExe(cmd, agentName); !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	var file struct {
		Hooks map[string][]struct {
			Command string `json:"command"`
			Hooks   []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	// Gemini CLI's settings may hold comments and trailing commas.
	std, err := standardize(data)
	if err != nil || json.Unmarshal(std, &file) != nil {
		return nil
	}
	events := make([]string, 0, len(file.Hooks))
	for e := range file.Hooks {
		events = append(events, e)
	}
	sort.Strings(events)
	for _, e := range events {
		for _, g := range file.Hooks[e] {
			if j.flat {
				add(g.Command)
				continue
			}
			for _, h := range g.Hooks {
				add(h.Command)
			}
		}
	}
	return out
}
