// Package ignore reads .gitignore and .ckptignore files as git reads a
// .gitignore (gitignore(5)): parsing follows git's dir.c and matching its
// wildmatch.c with WM_PATHNAME, case-sensitively, so a folder is skipped
// exactly when git would ignore it.
//
// A Set is never changed once made, so one may be shared by goroutines.
package ignore

import (
	"bytes"
	"slices"
	"strings"
)

// A Set is the patterns in force in one folder: those of its own and
// its parents' .gitignore files (which skip folders only: an ignored file
// such as .env is swept, since bringing it back is the point) and
// .ckptignore files (which skip folders and files). A deeper folder's
// patterns come after its parents', and the last pattern that matches a
// path decides.
type Set struct {
	git, ckpt []*Pattern
}

// With returns ig plus the patterns of one folder's ignore files.
func (ig *Set) With(git, ckpt []*Pattern) *Set {
	if len(git) == 0 && len(ckpt) == 0 {
		return ig
	}
	return &Set{
		git:  append(ig.git[:len(ig.git):len(ig.git)], git...),
		ckpt: append(ig.ckpt[:len(ig.ckpt):len(ig.ckpt)], ckpt...),
	}
}

// Skip reports whether a sweep leaves rel (split into its elements) out.
func (ig *Set) Skip(elems []string, isDir bool) bool {
	if isDir && len(ig.git) > 0 && ignored(ig.git, elems, true) {
		return true
	}
	return len(ig.ckpt) > 0 && ignored(ig.ckpt, elems, isDir)
}

// Pattern is one pattern line, compiled.
type Pattern struct {
	domain []string // the folder holding the ignore file, as path elements
	base   string   // domain joined with "/"
	// pat is the line without its "!", trailing "/" and, for a pattern
	// matched against the whole path, leading "/"; its first prefix bytes
	// hold no wildcard.
	pat    string
	prefix int
	segs   []string // pat split at "/", for a whole-path pattern without wildcards
	flags  uint8
}

const (
	ignNegate   = 1 << iota // "!": a match un-ignores
	ignDirOnly              // trailing "/": matches folders only
	ignBasename             // no "/" but a trailing one: matches the last element, at any depth
	ignSuffix               // "*" then no wildcard: matches names ending in pat[1:]
)

// Parse reads gitignore-syntax lines; domain is the folder holding
// the file, as path elements.
func Parse(data []byte, domain []string) []*Pattern {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(data) == 0 {
		return nil
	}
	text := string(data)
	base := strings.Join(domain, "/")
	compiled := make([]Pattern, 0, strings.Count(text, "\n")+1)
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		if p, ok := parseLine(line, domain, base); ok {
			compiled = append(compiled, p)
		}
	}
	if len(compiled) == 0 {
		return nil
	}
	ps := make([]*Pattern, len(compiled))
	for i := range compiled {
		ps[i] = &compiled[i]
	}
	return ps
}

// parseLine compiles one line that is neither empty nor a comment;
// it reports false for a line that can match nothing.
func parseLine(line string, domain []string, base string) (Pattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	if i := strings.IndexByte(line, 0); i >= 0 {
		line = line[:i] // git reads the line as a C string
	}
	line = trimTrailingSpaces(line)
	p := Pattern{domain: domain, base: base}
	if strings.HasPrefix(line, "!") {
		p.flags |= ignNegate
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.flags |= ignDirOnly
		line = line[:len(line)-1]
	}
	p.prefix = literalLen(line)
	if !strings.Contains(line, "/") {
		p.flags |= ignBasename
		if line != "" && line[0] == '*' && literalLen(line[1:]) == len(line)-1 {
			p.flags |= ignSuffix
		}
	} else if line[0] == '/' {
		line = line[1:]
		p.prefix--
	}
	if line == "" {
		return p, false // no path element is empty
	}
	p.pat = line
	if p.flags&ignBasename == 0 && p.prefix == len(line) {
		p.segs = strings.Split(line, "/")
	}
	return p, true
}

// trimTrailingSpaces drops the spaces that end line, but for one escaped
// with a backslash.
func trimTrailingSpaces(line string) string {
	end := len(line)
	for end > 0 && line[end-1] == ' ' {
		end--
	}
	if end == len(line) {
		return line
	}
	// The space after end is escaped if an odd run of backslashes ends at end.
	n := 0
	for i := end - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	if n%2 == 1 {
		end++
	}
	return line[:end]
}

// literalLen is the length of s's start that holds no wildcard.
func literalLen(s string) int {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			return i
		}
	}
	return len(s)
}

func isGlobSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }

// ignored reports whether the last of ps to match the path elems is not
// negated.
func ignored(ps []*Pattern, elems []string, isDir bool) bool {
	var buf [256]byte
	var full []byte // elems joined with "/", made for the first whole-path pattern with wildcards
	joined := false
	for i := len(ps) - 1; i >= 0; i-- {
		p := ps[i]
		if p.flags&ignDirOnly != 0 && !isDir {
			continue
		}
		k := len(p.domain)
		if len(elems) <= k || !slices.Equal(elems[:k], p.domain) {
			continue
		}
		var m bool
		switch {
		case p.flags&ignBasename != 0:
			m = p.matchName(elems[len(elems)-1])
		case p.segs != nil:
			m = slices.Equal(elems[k:], p.segs)
		default:
			if !joined {
				full = buf[:0]
				for j, e := range elems {
					if j > 0 {
						full = append(full, '/')
					}
					full = append(full, e...)
				}
				joined = true
			}
			name := full
			if k > 0 {
				name = full[len(p.base)+1:]
			}
			m = p.matchPath(name)
		}
		if m {
			return p.flags&ignNegate == 0
		}
	}
	return false
}

// matchName matches a pattern without "/" against a path's last element.
func (p *Pattern) matchName(name string) bool {
	switch {
	case p.prefix == len(p.pat):
		return name == p.pat
	case p.flags&ignSuffix != 0:
		return strings.HasSuffix(name, p.pat[1:])
	}
	return wildmatch(p.pat, name, false) == wmMatch
}

// matchPath matches a pattern with "/" against a path below its domain,
// as git's match_pathname does: the literal start is compared first and
// the rest handed to wildmatch as a pattern of its own. So a "**" right
// after that start counts as starting the pattern, as in git: "a**/b"
// matches "ax/y/b", where gitignore(5) would have it act as "a*/b".
func (p *Pattern) matchPath(name []byte) bool {
	pat := p.pat
	if n := p.prefix; n > 0 {
		if n > len(name) || string(name[:n]) != pat[:n] {
			return false
		}
		pat, name = pat[n:], name[n:]
		if pat == "" && len(name) == 0 {
			return true
		}
	}
	return wildmatch(pat, name, true) == wmMatch
}

// wildmatch's results, as in git's wildmatch.c.
const (
	wmNoMatch = iota
	wmMatch
	wmAbortAll
	wmAbortToStarStar
)

// at is s[i], or 0 past its end (paths and patterns hold no NUL).
func at[T ~string | ~[]byte](s T, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// wildmatch matches text against the glob p as git's dowild does; with
// pathname, "*", "?" and brackets never match "/" and "**" is special as a
// whole path segment.
func wildmatch[T ~string | ~[]byte](p string, text T, pathname bool) int {
	ti := 0
	for pi := 0; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		tc := at(text, ti)
		if tc == 0 && pc != '*' {
			return wmAbortAll
		}
		switch pc {
		case '\\':
			// A literal match with the next byte; a trailing backslash
			// matches nothing.
			pi++
			pc = at(p, pi)
			fallthrough
		default:
			if tc != pc {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
			}
		case '*':
			m, npi, nti, more := star(p, pi, text, ti, pathname)
			if !more {
				return m
			}
			pi, ti = npi, nti
		case '[':
			end, in, ok := bracket(p, pi, tc)
			if !ok {
				return wmAbortAll
			}
			if !in || pathname && tc == '/' {
				return wmNoMatch
			}
			pi = end
		}
	}
	if ti < len(text) {
		return wmNoMatch
	}
	return wmMatch
}

// star matches the "*" or "**" at p[pi] and what follows it against
// text[ti:]. It returns a final result, or more with the positions where
// wildmatch's loop carries on (a "*" that ran up to the next "/").
func star[T ~string | ~[]byte](p string, pi int, text T, ti int, pathname bool) (m, npi, nti int, more bool) {
	tc := at(text, ti)
	var matchSlash bool
	pi++
	if at(p, pi) == '*' {
		prev := pi - 2
		for pi++; at(p, pi) == '*'; pi++ {
		}
		switch {
		case !pathname:
			matchSlash = true
		case (prev < 0 || p[prev] == '/') &&
			(pi == len(p) || p[pi] == '/' || p[pi] == '\\' && at(p, pi+1) == '/'):
			// "**/" matches no folder too: try the rest here.
			if at(p, pi) == '/' && wildmatch(p[pi+1:], text[ti:], pathname) == wmMatch {
				return wmMatch, pi, ti, false
			}
			matchSlash = true
		}
	} else {
		matchSlash = !pathname
	}
	if pi == len(p) {
		// A trailing "**" matches everything, a trailing "*"
		// only what has no more "/".
		if !matchSlash && indexSlash(text[ti:]) >= 0 {
			return wmNoMatch, pi, ti, false
		}
		return wmMatch, pi, ti, false
	}
	if !matchSlash && p[pi] == '/' {
		// One "*" then "/" matches up to the next "/", which
		// the loop consumes.
		j := indexSlash(text[ti:])
		if j < 0 {
			return wmNoMatch, pi, ti, false
		}
		return 0, pi, ti + j, true
	}
	for tc != 0 {
		// When a literal follows the star, the text up to its
		// next occurrence belongs to the star.
		if !isGlobSpecial(p[pi]) {
			pc := p[pi]
			for {
				tc = at(text, ti)
				if tc == 0 || !matchSlash && tc == '/' || tc == pc {
					break
				}
				ti++
			}
			if tc != pc {
				if matchSlash {
					return wmAbortAll, pi, ti, false
				}
				return wmAbortToStarStar, pi, ti, false
			}
		}
		if m := wildmatch(p[pi:], text[ti:], pathname); m != wmNoMatch {
			if !matchSlash || m != wmAbortToStarStar {
				return m, pi, ti, false
			}
		} else if !matchSlash && tc == '/' {
			return wmAbortToStarStar, pi, ti, false
		}
		ti++
		tc = at(text, ti)
	}
	return wmAbortAll, pi, ti, false
}

// bracket matches tc against the bracket expression opening at p[pi]. It
// returns the index of the closing "]" and whether tc is a member, or false
// in ok for an expression that matches nothing (no closing "]", an unknown
// class).
func bracket(p string, pi int, tc byte) (end int, in, ok bool) {
	pi++
	pc := at(p, pi)
	if pc == '^' {
		pc = '!'
	}
	negated := pc == '!'
	if negated {
		pi++
		pc = at(p, pi)
	}
	var prev byte
	matched := false
	for {
		// The first byte, "]" included, is always a member.
		if pc == 0 {
			return 0, false, false // no closing "]": the pattern matches nothing
		}
		switch {
		case pc == '\\':
			pi++
			pc = at(p, pi)
			if pc == 0 {
				return 0, false, false
			}
			if tc == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && at(p, pi+1) != 0 && p[pi+1] != ']':
			pi++
			pc = p[pi]
			if pc == '\\' {
				pi++
				pc = at(p, pi)
				if pc == 0 {
					return 0, false, false
				}
			}
			if tc <= pc && tc >= prev {
				matched = true
			}
			pc = 0 // no range starts at a range's end
		case pc == '[' && at(p, pi+1) == ':':
			pi += 2
			s := pi
			for pi < len(p) && p[pi] != ']' {
				pi++
			}
			if pi == len(p) {
				return 0, false, false
			}
			if pi-s-1 < 0 || p[pi-1] != ':' {
				// No ":]": a plain "[".
				pi = s - 2
				pc = '['
				if tc == pc {
					matched = true
				}
				break
			}
			cm, ok := charClass(p[s:pi-1], tc)
			if !ok {
				return 0, false, false // an unknown class
			}
			if cm {
				matched = true
			}
			pc = 0
		default:
			if tc == pc {
				matched = true
			}
		}
		prev = pc
		pi++
		pc = at(p, pi)
		if pc == ']' {
			break
		}
	}
	return pi, matched != negated, true
}

func indexSlash[T ~string | ~[]byte](s T) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

// charClass reports whether c is in the POSIX class name, by git's ASCII
// character table (its [:space:] is space, tab, LF and CR), and false in
// ok for a name that is no class.
func charClass(name string, c byte) (in, ok bool) {
	lower := 'a' <= c && c <= 'z'
	upper := 'A' <= c && c <= 'Z'
	digit := '0' <= c && c <= '9'
	switch name {
	case "alnum":
		return lower || upper || digit, true
	case "alpha":
		return lower || upper, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < 0x20 || c == 0x7f, true
	case "digit":
		return digit, true
	case "graph":
		return 0x21 <= c && c <= 0x7e, true
	case "lower":
		return lower, true
	case "print":
		return 0x20 <= c && c <= 0x7e, true
	case "punct":
		return 0x21 <= c && c <= 0x7e && !lower && !upper && !digit, true
	case "space":
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true
	case "upper":
		return upper, true
	case "xdigit":
		return digit || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F', true
	}
	return false, false
}
