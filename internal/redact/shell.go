package redact

import (
	"strings"
)

// A shell's command string (sh -c STRING, cmd /c STRING, powershell
// -Command STRING) holds a whole command line in one argument. It is split
// into words the way its shell would split them, each command's words are
// redacted by the launch rule as the same words given as arguments would
// be, and the string is put back as written, each secret replaced by
// Marker.

// dialect is how a shell splits its command string.
type dialect int

const (
	posix      dialect = iota + 1 // sh, bash, zsh, ...: '...', "...", \
	cmdExe                        // cmd: "...", ^
	powerShell                    // powershell, pwsh: '...', "...", `
	// encoded is the argument of powershell -EncodedCommand: a script in
	// base64, which is not decoded (what it says is unknown) and is hidden
	// whole.
	encoded
	// envSplit is the string of env -S: words, quotes and escapes as a
	// POSIX shell reads them, no operators.
	envSplit
)

// maxDepth is how deep command strings are read inside one another (sh -c
// "pwsh -c '...'"); one deeper is hidden whole. Each level reads a string
// about as long as the one holding it: a bound keeps the time linear.
const maxDepth = 5

// posixShells are the shells that run the string after -c (or a group of
// flags holding c: -lc, -ic, -ec).
var posixShells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true,
	"ash": true, "mksh": true, "yash": true, "fish": true,
}

// shellScript returns the index in argv of the command string a shell
// runs, wherever the shell stands in argv (sh -c, docker exec CTR sh -c,
// env bash -lc), and how that shell splits it; -1 when there is none.
func shellScript(argv []string) (int, dialect) {
	j, d, _ := findScript(argv)
	return j, d
}

// findScript is shellScript, with the number of words it looked at.
// Each word is looked at a bounded number of times: the options of a
// POSIX shell that runs no string, and their values (sh -o NAME), are
// read once, not again from each shell's name among them (sh -o sh -o
// sh ..., n words looked at n*n/4 times before).
func findScript(argv []string) (int, dialect, int) {
	looked := 0
	pwsh := false // a PowerShell was looked at: its look went to the end
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		looked++
		if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
			continue
		}
		switch name := commandName(a); {
		case posixShells[name]:
			j, end := posixScript(argv, i+1)
			looked += end - (i + 1)
			if j >= 0 {
				return j, posix, looked
			}
			// argv[i+1:end] are the shell's options and their values, no
			// command of their own.
			i = end - 1
		case name == "cmd":
			if j := cmdScript(argv, i+1); j >= 0 {
				return j, cmdExe, looked
			}
		case (name == "powershell" || name == "pwsh") && !pwsh:
			if j, d := powerShellScript(argv, i+1); j >= 0 {
				return j, d, looked
			}
			pwsh = true
		}
	}
	return -1, 0, looked
}

// posixScript is the index of the first argument that is no option, after
// the options from argv[from] when one of them holds c (else -1), and
// where the options end: that argument, a -- or -, or len(argv).
func posixScript(argv []string, from int) (script, end int) {
	sawC := false
	j := from
	for ; j < len(argv); j++ {
		a := argv[j]
		switch {
		case a == "--" || a == "-":
			if sawC && j+1 < len(argv) {
				return j + 1, j
			}
			return -1, j
		case strings.HasPrefix(a, "--"):
			switch a {
			case "--rcfile", "--init-file":
				j++ // its file
			case "--command": // fish
				sawC = true
			}
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			if a[0] == '-' && strings.Contains(a[1:], "c") {
				sawC = true
			}
			if strings.ContainsAny(a[1:], "oO") {
				j++ // -o OPTION, -O OPTION
			}
		default:
			if sawC {
				return j, j
			}
			return -1, j
		}
	}
	return -1, min(j, len(argv))
}

// cmdScript is the index of the argument after /c (or /k, /r), among the
// switches from argv[from].
func cmdScript(argv []string, from int) int {
	for j := from; j < len(argv); j++ {
		switch a := strings.ToLower(argv[j]); {
		case a == "/c" || a == "/k" || a == "/r":
			if j+1 < len(argv) {
				return j + 1
			}
			return -1
		case !strings.HasPrefix(a, "/"):
			return -1
		}
	}
	return -1
}

// powerShellScript is the index of the argument after -Command (-c, or
// any start of it from -com, as PowerShell takes it), the first of the
// script's words, or of the one after -EncodedCommand (-e, -ec, -enc, ...)
// or -EncodedArguments (-ea), which is encoded; -1 after -File.
func powerShellScript(argv []string, from int) (int, dialect) {
	for j := from; j < len(argv); j++ {
		a := strings.ToLower(argv[j])
		if len(a) < 2 || (a[0] != '-' && a[0] != '/') {
			continue // the value of an option (-ExecutionPolicy Bypass)
		}
		d := dialect(0)
		switch name := a[1:]; {
		case name == "c" || len(name) >= 3 && strings.HasPrefix("command", name):
			d = powerShell
		case encodedFlag(a):
			d = encoded
		case name == "f" || name == "file":
			return -1, 0
		default:
			continue
		}
		if j+1 < len(argv) {
			return j + 1, d
		}
		return -1, 0
	}
	return -1, 0
}

// encodedFlag reports whether a is PowerShell's -EncodedCommand or
// -EncodedArguments, or a start of either it takes: -e, -ec, -ea, -enc.
func encodedFlag(a string) bool {
	if len(a) < 2 || (a[0] != '-' && a[0] != '/') {
		return false
	}
	name := strings.ToLower(a[1:])
	return name == "e" || name == "ec" || name == "ea" || len(name) >= 2 && (strings.HasPrefix("encodedcommand", name) || strings.HasPrefix("encodedarguments", name))
}

// A token is a word or an operator of a command string.
type token struct {
	start, end int // where it is written
	// value is the word as the shell reads it; at[k] is where value[k] is
	// written, from[k] where the text writing it starts (its escape).
	value    []byte
	at, from []int
	op       bool // an operator: ; & | ( ) a new line, or a redirection
	redirect bool // a redirection: < >
	// commas are where value holds a comma written outside quotes, which
	// separates PowerShell's arguments to a method.
	commas []int
	v      int // where value starts in the splitter's values, while split
}

// splitter reads a command string into tokens. The values of all its
// words are kept in one buffer of each kind, cut into each word's at the
// end: a word of its own buffers would cost three allocations.
type splitter struct {
	toks     []token
	in       bool // the last token is a word still being read
	value    []byte
	at, from []int
	commas   []int // where value holds a comma outside quotes
}

// open starts a word at i, unless one is being read.
func (p *splitter) open(i int) {
	if !p.in {
		p.toks = append(p.toks, token{start: i, end: i, v: len(p.value)})
		p.in = true
	}
}

// add adds c, written at at by the text from from, to the word being read.
func (p *splitter) add(c byte, at, from int) {
	p.open(from)
	p.value = append(p.value, c)
	p.at = append(p.at, at)
	p.from = append(p.from, from)
	p.toks[len(p.toks)-1].end = at + 1
}

// done cuts the values into each word's.
func (p *splitter) done() []token {
	c := 0 // p.commas[c:] are the next word's and after
	for i := range p.toks {
		t := &p.toks[i]
		if t.op {
			continue
		}
		end := len(p.value)
		for k := i + 1; k < len(p.toks); k++ {
			if !p.toks[k].op {
				end = p.toks[k].v
				break
			}
		}
		t.value, t.at, t.from = p.value[t.v:end:end], p.at[t.v:end:end], p.from[t.v:end:end]
		from := c
		for c < len(p.commas) && p.commas[c] < end {
			p.commas[c] -= t.v
			c++
		}
		if c > from {
			t.commas = p.commas[from:c:c]
		}
	}
	return p.toks
}

// close ends what the word being read writes at end.
func (p *splitter) close(end int) { p.toks[len(p.toks)-1].end = end }

// isOp reports whether c is an operator of the dialect, outside quotes
// (in a POSIX shell, the backquote of a command substitution too).
func isOp(c byte, d dialect) bool {
	switch d {
	case cmdExe:
		return strings.IndexByte("&|()<>", c) >= 0
	case powerShell:
		return strings.IndexByte(";&|(){}<>", c) >= 0
	case envSplit:
		return false
	}
	// A backquote starts or ends a command substitution, whose words are
	// its command's: `srv --token X` hides X, not X`.
	return strings.IndexByte(";&|()<>`", c) >= 0
}

// split splits a command string as its shell would, simply: quotes,
// escapes and operators; not expansions. It fails on a quote left open.
func split(s string, d dialect) ([]token, bool) {
	// The words hold at most len(s) bytes, and there are at most as many
	// tokens as bytes that follow a space or an operator: sized once, the
	// buffers never grow.
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' && (i == 0 || strings.IndexByte(" \t\r\n;&|()<>`{}", s[i-1]) >= 0 || strings.IndexByte("\n;&|()<>`{}", s[i]) >= 0) {
			n++
		}
	}
	p := &splitter{toks: make([]token, 0, n), value: make([]byte, 0, len(s)), at: make([]int, 0, len(s)), from: make([]int, 0, len(s))}
	// escape is the character that takes the next one as written.
	escape := byte('\\')
	switch d {
	case cmdExe:
		escape = '^'
	case powerShell:
		escape = '`'
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' && d == envSplit:
			p.in = false
			i++
		case d == powerShell && braced(s, i) > 0:
			// ${env:NAME}: a variable's name in braces, one word with
			// what follows it.
			for k := i + braced(s, i); i < k; i++ {
				p.add(s[i], i, i)
			}
		case c == '\n' || isOp(c, d):
			p.in = false
			j := i + 1
			for c != '\n' && j < len(s) && isOp(s[j], d) {
				j++
			}
			op := s[i:j]
			p.toks = append(p.toks, token{start: i, end: j, op: true, redirect: strings.ContainsAny(op, "<>")})
			i = j
		case c == escape:
			switch {
			case i+1 == len(s):
				p.add(c, i, i)
				i++
			case s[i+1] == '\n': // a line continued
				i += 2
			default:
				p.add(s[i+1], i+1, i)
				i += 2
			}
		case d == posix && c == '$' && i+1 < len(s) && s[i+1] == '\'':
			// $'...': bash's ANSI-C quoting, its escapes read.
			p.open(i)
			i += 2
			for {
				if i == len(s) {
					return nil, false
				}
				if s[i] == '\'' {
					break
				}
				if s[i] == '\\' && i+1 < len(s) {
					n, b := ansiC(s[i:])
					for _, c := range b {
						p.add(c, i+n-1, i)
					}
					i += n
					continue
				}
				p.add(s[i], i, i)
				i++
			}
			i++
			p.close(i)
		case d == posix && c == '$' && i+1 < len(s) && s[i+1] == '"':
			// $"...": a string to translate, read as "...".
			p.open(i)
			i++
		case c == '\'' && d != cmdExe:
			p.open(i)
			i++
			for {
				if i == len(s) {
					return nil, false
				}
				if s[i] == '\'' {
					if d == powerShell && i+1 < len(s) && s[i+1] == '\'' {
						p.add('\'', i+1, i) // '' in PowerShell
						i += 2
						continue
					}
					break
				}
				p.add(s[i], i, i)
				i++
			}
			i++
			p.close(i)
		case c == '"':
			p.open(i)
			i++
			for {
				if i == len(s) {
					return nil, false
				}
				c := s[i]
				if c == '"' {
					if d == powerShell && i+1 < len(s) && s[i+1] == '"' {
						p.add('"', i+1, i) // "" in PowerShell
						i += 2
						continue
					}
					break
				}
				switch {
				case (d == posix || d == envSplit) && c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0,
					d == powerShell && c == '`' && i+1 < len(s):
					if s[i+1] != '\n' {
						p.add(s[i+1], i+1, i)
					}
					i += 2
				default:
					p.add(c, i, i)
					i++
				}
			}
			i++
			p.close(i)
		default:
			p.add(c, i, i)
			if c == ',' {
				p.commas = append(p.commas, len(p.value)-1)
			}
			i++
		}
	}
	return p.done(), true
}

// splitWithout is split of s without the characters at i and j (when
// they are not -1), its tokens placed where they are written in s.
func splitWithout(s string, d dialect, i, j int) ([]token, bool) {
	if i < 0 && j < 0 {
		return split(s, d)
	}
	var b strings.Builder
	at := make([]int, 0, len(s)+1) // at[k] is where the k-th byte read is in s
	for k := 0; k < len(s); k++ {
		if k != i && k != j {
			b.WriteByte(s[k])
			at = append(at, k)
		}
	}
	at = append(at, len(s))
	toks, ok := split(b.String(), d)
	if !ok {
		return nil, false
	}
	for n := range toks {
		t := &toks[n]
		end := at[t.start]
		if t.end > t.start {
			end = at[t.end-1] + 1
		}
		t.start, t.end = at[t.start], end
		for k := range t.at {
			t.at[k], t.from[k] = at[t.at[k]], at[t.from[k]]
		}
	}
	return toks, true
}

// ansiC reads the escape that starts s (a backslash) in bash's $'...':
// how long it is, and the bytes it stands for.
func ansiC(s string) (int, []byte) {
	if len(s) < 2 {
		return len(s), []byte(s)
	}
	if k := strings.IndexByte(`abeEfnrtv\'"?`, s[1]); k >= 0 {
		return 2, []byte{"\a\b\x1b\x1b\f\n\r\t\v\\'\"?"[k]}
	}
	// digits reads up to n digits of base from s[from:].
	digits := func(from, n, base int) (int, rune) {
		k, v := 0, rune(0)
		for ; k < n && from+k < len(s); k++ {
			d := strings.IndexByte("0123456789abcdef", s[from+k]|0x20) // |0x20: A-F in lower case
			if d < 0 || d >= base {
				break
			}
			v = v*rune(base) + rune(d)
		}
		return k, v
	}
	switch c := s[1]; {
	case '0' <= c && c <= '7':
		k, v := digits(1, 3, 8)
		return 1 + k, []byte{byte(v)}
	case c == 'x':
		if k, v := digits(2, 2, 16); k > 0 {
			return 2 + k, []byte{byte(v)}
		}
	case c == 'u' || c == 'U':
		n := 4
		if c == 'U' {
			n = 8
		}
		if k, v := digits(2, n, 16); k > 0 {
			return 2 + k, []byte(string(v))
		}
	case c == 'c' && len(s) > 2:
		return 3, []byte{s[2] & 0x1f}
	}
	return 2, []byte(s[:2])
}

// braced is the length of the PowerShell variable ${NAME} at s[i:]
// (${env:API_KEY}), 0 if there is none there.
func braced(s string, i int) int {
	if !strings.HasPrefix(s[i:], "${") {
		return 0
	}
	for k := i + 2; k < len(s); k++ {
		switch c := s[k]; {
		case c == '}':
			if k > i+2 {
				return k + 1 - i
			}
			return 0
		case c != ':' && c != '_' && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'):
			return 0
		}
	}
	return 0
}

// script redacts a shell's command string.
func (h *hider) script(s string, d dialect) string {
	return h.scripts([]string{s}, d, scriptOpts{})[0]
}

// scriptOpts are how a command string is read.
type scriptOpts struct {
	slashS bool // cmd /s: the quotes around the string are stripped
	value  bool // what the string prints is a variable's value: $(...)
}

// scripts redacts the words of a shell's command string given over
// several arguments: PowerShell joins the arguments after -Command with
// spaces into one script; cmd reads the rest of its command line after
// /c, where a launcher writes an argument holding a space in quotes. The
// string is read whole, and each argument shows its part of it. A string
// that cannot be split is redacted as free text, argument by argument.
func (h *hider) scripts(args []string, d dialect, o scriptOpts) []string {
	out := make([]string, len(args))
	if h.depth >= maxDepth {
		for k, a := range args {
			out[k] = h.hide(a)
		}
		return out
	}
	h.depth++
	defer func() { h.depth-- }()
	var b strings.Builder
	lo, hi := make([]int, len(args)), make([]int, len(args)) // where each argument is
	for k, a := range args {
		if k > 0 {
			b.WriteByte(' ')
		}
		// The first is the string as the config wrote it; a quote in
		// another is written as it is, not escaped as \", which cmd reads
		// as a backslash and a quote.
		quote := d == cmdExe && k > 0 && strings.ContainsAny(a, " \t") && !strings.Contains(a, `"`)
		if quote {
			b.WriteByte('"')
		}
		lo[k] = b.Len()
		b.WriteString(a)
		hi[k] = b.Len()
		if quote {
			b.WriteByte('"')
		}
	}
	s := b.String()
	var edits []edit
	var also *Scrubber
	ok := false
	if p, q, strip := cmdQuotes(s, d); strip {
		// cmd strips the quote that starts the string and the last one,
		// unless /s is not given, the string holds those two quotes alone,
		// with a space between and none of &<>()@^| (and what they hold
		// is a program, which cannot be told here): the secrets of both
		// readings are hidden.
		edits, ok = h.scriptEdits(s, d, o, p, q)
		if ok && !o.slashS && cmdMayKeep(s, p, q) {
			kept := &hider{depth: h.depth}
			if _, ok := kept.scriptEdits(s, d, o, -1, -1); ok && len(kept.hidden) > 0 {
				h.hidden = append(h.hidden, kept.hidden...)
				also = New(kept.hidden...)
			}
		}
	} else {
		edits, ok = h.scriptEdits(s, d, o, -1, -1)
	}
	if !ok {
		for k, a := range args {
			out[k] = h.freeText(a)
		}
		return out
	}
	out = splitEdits(s, lo, hi, edits)
	if also != nil {
		for k := range out {
			out[k] = also.Values(out[k])
		}
	}
	return out
}

// cmdQuotes returns where the quote that starts cmd's command string s
// is, and the last quote of s (-1 when it is that one); false when s does
// not start with a quote.
func cmdQuotes(s string, d dialect) (int, int, bool) {
	if d != cmdExe {
		return -1, -1, false
	}
	p := 0
	for p < len(s) && (s[p] == ' ' || s[p] == '\t') {
		p++
	}
	if p == len(s) || s[p] != '"' {
		return -1, -1, false
	}
	q := strings.LastIndexByte(s, '"')
	if q == p {
		q = -1
	}
	return p, q, true
}

// cmdMayKeep reports whether cmd without /s may keep the quotes of s at p
// and q: they are its only quotes, with white space and none of &<>()@^|
// between them.
func cmdMayKeep(s string, p, q int) bool {
	if q < 0 || strings.Count(s, `"`) != 2 {
		return false
	}
	in := s[p+1 : q]
	return strings.ContainsAny(in, " \t") && !strings.ContainsAny(in, "&<>()@^|")
}

// An edit replaces s[start:end] of a command string by text.
type edit struct {
	start, end int
	text       string
}

// apply applies edits, in order and apart, to s.
func apply(s string, edits []edit) string {
	if len(edits) == 0 {
		return s
	}
	var b strings.Builder
	done := 0 // s[:done] is in b
	for _, e := range edits {
		b.WriteString(s[done:e.start])
		b.WriteString(e.text)
		done = e.end
	}
	b.WriteString(s[done:])
	return b.String()
}

// splitEdits applies edits, in order and apart, to s, whose arguments are
// s[lo[k]:hi[k]], and returns each argument edited. An edit over two
// arguments writes its text in the first and takes the rest of both; one
// in the space between them writes it in the next.
func splitEdits(s string, lo, hi []int, edits []edit) []string {
	out := make([]string, len(lo))
	e, placed := 0, -1 // edits[e] is the next; its text is written when placed == e
	for k := range lo {
		var b strings.Builder
		pos := lo[k] // s[lo[k]:pos] is in b
		for e < len(edits) {
			ed := edits[e]
			if ed.start > hi[k] || ed.start == hi[k] && ed.end > ed.start && k+1 < len(lo) {
				break // the next argument's
			}
			b.WriteString(s[pos:max(pos, ed.start)])
			if placed != e {
				b.WriteString(ed.text)
				placed = e
			}
			if ed.end > hi[k] {
				pos = hi[k] // it goes on in the next argument
				break
			}
			pos = max(pos, ed.end)
			e++
		}
		b.WriteString(s[pos:hi[k]])
		out[k] = b.String()
	}
	for ; e < len(edits) && len(out) > 0; e++ {
		if placed != e {
			out[len(out)-1] += edits[e].text
		}
	}
	return out
}

// scriptEdits reads a shell's command string, without the characters at
// strip1 and strip2 (when they are not -1), and returns the edits that
// redact it, in order and apart; false when it cannot be split.
func (h *hider) scriptEdits(s string, d dialect, o scriptOpts, strip1, strip2 int) ([]edit, bool) {
	toks, ok := splitWithout(s, d, strip1, strip2)
	if !ok {
		return nil, false
	}
	var bodies []span
	if d == posix {
		if bodies, ok = hereDocs(s, toks); !ok {
			return nil, false
		}
	}
	next := 0                    // bodies[next:] end after the token looked at
	body := func(t token) bool { // t is in a here-document's body
		for next < len(bodies) && bodies[next].end <= t.start {
			next++
		}
		return next < len(bodies) && t.start >= bodies[next].start
	}
	shown := make([]string, len(toks)) // what each word shows
	var words []int                    // the words of the command being read
	var here []int                     // its here-strings (<<< WORD)
	var sub substitutions              // the command substitutions it is in
	flush := func() {
		argv := make([]string, len(words))
		for k, i := range words {
			argv[k] = string(toks[i].value)
		}
		printing := o.value || sub.assigned()
		var red []string
		if printing && len(argv) > 0 && (commandName(argv[0]) == "echo" || commandName(argv[0]) == "printf") {
			// What it prints is the value: TOKEN=$(echo X).
			red = make([]string, len(argv))
			red[0] = argv[0]
			for k, w := range argv[1:] {
				red[k+1] = w
				if !echoOption().MatchString(w) && !varRef().MatchString(w) {
					red[k+1] = h.hide(w)
				}
			}
		} else {
			red = h.command(argv, d)
		}
		for k, v := range red {
			shown[words[k]] = v
		}
		for _, i := range here {
			if v := string(toks[i].value); printing || readsSecret(argv) {
				shown[i] = h.hide(v)
			} else {
				shown[i] = h.arg(v)
			}
		}
		words, here = words[:0], here[:0]
	}
	target := 0 // the word after a redirection: a file (1), a here-string (2)
	// PowerShell's [Environment]::SetEnvironmentVariable(NAME, VALUE,
	// TARGET): its arguments are read as they are separated, by commas,
	// and VALUE is hidden.
	var c call
	pending := false // the word before was SetEnvironmentVariable
	for i, t := range toks {
		wasPending := pending
		pending = false
		switch {
		case body(t):
		case t.redirect:
			if d == posix {
				sub.read(s[t.start:t.end], "") // <(...)
			}
			// 2>, 2>&1: the number before is no argument.
			if n := len(words); n > 0 && words[n-1] == i-1 && toks[i-1].end == t.start && digits(toks[i-1].value) {
				shown[i-1] = string(toks[i-1].value)
				words = words[:n-1]
			}
			target = 1
			if d == posix && strings.HasSuffix(s[t.start:t.end], "<<<") {
				target = 2
			}
		case t.op:
			flush()
			target = 0
			op := s[t.start:t.end]
			if wasPending && op[0] == '(' {
				c = call{in: true}
				op = op[1:]
			}
			if c.in {
				h.callOp(&c, op)
			}
			if d == posix {
				prev := ""
				if i > 0 && !toks[i-1].op && toks[i-1].end == t.start && shAssign().Match(toks[i-1].value) {
					prev = string(toks[i-1].value) // NAME=$(, NAME=`
				}
				sub.read(s[t.start:t.end], prev)
			}
		case c.in:
			shown[i] = h.callWord(&c, t)
		case target == 2:
			here = append(here, i)
			target = 0
		case target == 1:
			shown[i] = h.arg(string(t.value))
			target = 0
		default:
			words = append(words, i)
			pending = d == powerShell && setEnv().MatchString(string(t.value))
		}
	}
	flush()
	if c.in {
		h.callOp(&c, ";")
	}
	var edits []edit
	body2 := func(b span) {
		if text := h.text(s[b.start:b.end]); text != s[b.start:b.end] {
			edits = append(edits, edit{b.start, b.end, text})
		}
	}
	done := 0 // the edits of s[:done] are made
	for i, t := range toks {
		if t.start < done {
			continue // in a here-document's body, edited
		}
		if len(bodies) > 0 && t.start >= bodies[0].start {
			body2(bodies[0])
			done = bodies[0].end
			bodies = bodies[1:]
			if t.start < done {
				continue
			}
		}
		if !t.op {
			if e, ok := rewrite(s, t, shown[i]); ok {
				edits = append(edits, e)
			}
		}
		done = t.end
	}
	for _, b := range bodies {
		body2(b)
	}
	return edits, true
}

// A span is where some text of a command string is.
type span struct{ start, end int }

// hereDocs are the bodies of the here-documents of a POSIX shell's
// command string (cat <<EOF, <<-'EOF'), each from the line after its
// redirection to its delimiter's line, in order: text that is no command,
// redacted as free text ([Text]). It fails on a word that runs past the
// end of a body (a quote opened in it).
func hereDocs(s string, toks []token) ([]span, bool) {
	var out []span
	type delim struct {
		word string
		tabs bool // <<-: the lines' leading tabs are dropped
	}
	var pending []delim
	skip := 0 // toks before s[skip] are in a body
	for i, t := range toks {
		if t.start < skip {
			if t.end > skip {
				return nil, false
			}
			continue
		}
		op := s[t.start:t.end]
		switch {
		case t.op && strings.HasSuffix(op, "<<") && !strings.HasSuffix(op, "<<<") && i+1 < len(toks) && !toks[i+1].op:
			w, tabs := string(toks[i+1].value), false
			if strings.HasPrefix(w, "-") && toks[i+1].start == t.end {
				w, tabs = w[1:], true
			}
			pending = append(pending, delim{w, tabs})
		case t.op && op == "\n" && len(pending) > 0:
			at := t.end
			for _, p := range pending {
				b := span{at, len(s)}
				for at < len(s) {
					end, next := len(s), len(s)
					if nl := strings.IndexByte(s[at:], '\n'); nl >= 0 {
						end, next = at+nl, at+nl+1
					}
					line := s[at:end]
					if p.tabs {
						line = strings.TrimLeft(line, "\t")
					}
					if line == p.word {
						b.end = at
						at = next
						break
					}
					at = next
				}
				out = append(out, b)
			}
			pending = pending[:0]
			skip = at
		}
	}
	return out, true
}

// command redacts the words of one command: the assignments before it
// (NAME=VALUE cmd; in cmd, set NAME=VALUE; in PowerShell, $env:NAME =
// VALUE) hide their values, and the command's own words follow the launch
// rule.
func (h *hider) command(words []string, d dialect) []string {
	out := make([]string, len(words))
	if len(words) == 0 {
		return out
	}
	if d == powerShell {
		if out, ok := h.envItem(words); ok {
			return out
		}
	}
	assign := -1 // the word holding NAME=, whose value is hidden to the end
	switch {
	case d == powerShell && psEnv().MatchString(words[0]):
		assign = 0
	case d == cmdExe && strings.EqualFold(words[0], "set"):
		out[0] = words[0]
		for k := 1; k < len(words) && assign < 0; k++ {
			if strings.Contains(words[k], "=") {
				assign = k
			} else {
				out[k] = words[k] // set /a, set /p
			}
		}
	}
	if assign >= 0 {
		name, val, eq := strings.Cut(words[assign], "=")
		out[assign] = words[assign]
		k := assign + 1
		switch {
		case eq && val != "":
			out[assign] = name + "=" + h.hide(val)
		case !eq && k < len(words) && words[k] == "=":
			out[k] = words[k]
			k++
		}
		for ; k < len(words); k++ {
			out[k] = h.hide(words[k])
		}
		return out
	}
	c := 0
	for c < len(words) && assigns(words[c], d) {
		out[c] = h.assignment(words[c], d)
		c++
	}
	if d == posix && c < len(words) && declarations[words[c]] {
		// export NAME=VALUE ...: each NAME=VALUE is an assignment.
		out[c] = words[c]
		for k := c + 1; k < len(words); k++ {
			if assigns(words[k], d) {
				out[k] = h.assignment(words[k], d)
			} else {
				out[k] = h.arg(words[k])
			}
		}
		return out
	}
	copy(out[c:], h.args(words[c:]))
	return out
}

// echoOption matches echo's options.
var echoOption = lazyRegexp(`^-[neE]+$`)

// varRef matches a POSIX shell's reference to a variable ($NAME,
// ${NAME}), which holds no value as written.
var varRef = lazyRegexp(`^\$([A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})$`)

// substitutions follows the command substitutions of a POSIX shell's
// command string that are a variable's value (NAME=$(...), NAME=`...`):
// the commands in them print the value.
type substitutions struct {
	parens   int   // ( open
	values   []int // the parens at which each $( of a value opened
	inBq     bool  // in `...`
	bqAssign bool  // ... of a value
}

// assigned reports whether the commands read are in a substitution that
// is a variable's value.
func (u *substitutions) assigned() bool { return len(u.values) > 0 || u.bqAssign }

// read reads an operator, written right after the assignment prev
// (NAME=$, NAME=) or after no assignment ("").
func (u *substitutions) read(op, prev string) {
	for k := 0; k < len(op); k++ {
		switch op[k] {
		case '(':
			u.parens++
			if k == 0 && strings.HasSuffix(prev, "$") {
				u.values = append(u.values, u.parens)
			}
		case ')':
			if n := len(u.values); n > 0 && u.values[n-1] == u.parens {
				u.values = u.values[:n-1]
			}
			u.parens = max(0, u.parens-1)
		case '`':
			u.inBq = !u.inBq
			u.bqAssign = u.inBq && k == 0 && strings.HasSuffix(prev, "=")
		}
	}
}

// setEnv matches PowerShell's method that sets an environment variable.
var setEnv = lazyRegexp(`(?i)^\[(system\.)?environment\]::setenvironmentvariable$`)

// A call is the reading of the arguments of SetEnvironmentVariable.
type call struct {
	in     bool
	parens int             // ( open inside it
	arg    int             // the argument being read: 0 the name, 1 the value
	value  strings.Builder // the value, as read
}

// callOp reads the operator op in the call's arguments: a ) that closes
// the call, or any other than ( and ), ends it.
func (h *hider) callOp(c *call, op string) {
	for k := 0; k < len(op); k++ {
		switch {
		case op[k] == '(':
			c.parens++
		case op[k] == ')' && c.parens > 0:
			c.parens--
		default:
			if v := strings.TrimSpace(c.value.String()); v != "" {
				h.hide(v)
			}
			*c = call{}
			return
		}
	}
}

// callWord returns how a word of the call's arguments shows: the value
// hidden, the commas and the other arguments as written.
func (h *hider) callWord(c *call, t token) string {
	var b strings.Builder
	commas, inValue := t.commas, false
	if c.arg == 1 && c.value.Len() > 0 {
		c.value.WriteByte(' ') // the value goes on after a space
	}
	for k, ch := range t.value {
		switch {
		case len(commas) > 0 && commas[0] == k:
			commas = commas[1:]
			c.arg++
			inValue = false
			b.WriteByte(',')
		case c.arg == 1:
			if !inValue {
				b.WriteString(Marker)
				inValue = true
			}
			c.value.WriteByte(ch)
		default:
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// readsSecret reports whether the POSIX shell's command words, given a
// here-string, read a secret from it: read, mapfile and readarray assign
// it to variables (read TOKEN <<< X), and a command that names a secret
// word takes one (docker login --password-stdin <<< X).
func readsSecret(words []string) bool {
	c := 0
	for c < len(words) && assigns(words[c], posix) {
		c++
	}
	if c < len(words) && (words[c] == "read" || words[c] == "mapfile" || words[c] == "readarray") {
		return true
	}
	for _, w := range words[c:] {
		if secretWord().MatchString(w) {
			return true
		}
	}
	return false
}

// envItems are the PowerShell commands (and their aliases) that set an
// item's value, an environment variable's when the item is env:NAME.
var envItems = map[string]bool{
	"set-item": true, "si": true, "new-item": true, "ni": true,
	"set-content": true, "sc": true, "add-content": true, "ac": true,
}

// envDrive matches PowerShell's path of an environment variable (env:NAME,
// Env:\NAME, env:).
var envDrive = lazyRegexp(`(?i)^env:`)

// envItem redacts PowerShell's Set-Item env:NAME VALUE (-Value VALUE, and
// New-Item, Set-Content, Add-Content and their aliases): VALUE, given
// after -Value or after the path, is hidden; false for another command.
func (h *hider) envItem(words []string) ([]string, bool) {
	if len(words) == 0 || !envItems[strings.ToLower(words[0])] {
		return nil, false
	}
	path := -1
	for k, w := range words {
		if k > 0 && envDrive().MatchString(w) {
			path = k
			break
		}
	}
	if path < 0 {
		return nil, false
	}
	out := make([]string, len(words))
	out[0] = words[0]
	first := true // the next word that is no option's is the path
	for k := 1; k < len(words); k++ {
		w := words[k]
		out[k] = w
		if !strings.HasPrefix(w, "-") {
			if !first && k != path {
				out[k] = h.hide(w)
			}
			first = false
			continue
		}
		name, val, colon := strings.Cut(strings.ToLower(w[1:]), ":")
		switch {
		case len(name) >= 2 && strings.HasPrefix("value", name):
			if colon && val != "" { // -Value:X
				out[k] = w[:len(name)+2] + h.hide(w[len(name)+2:])
			} else if k+1 < len(words) {
				k++
				out[k] = h.hide(words[k])
			}
		case !colon && (name == "path" || name == "name" || name == "literalpath" || name == "itemtype" || name == "type" || name == "encoding") && k+1 < len(words):
			k++
			out[k] = words[k]
			if name == "path" || name == "literalpath" {
				first = false
			}
		}
	}
	return out, true
}

// declarations are the POSIX shells' commands whose NAME=VALUE arguments
// are assignments.
var declarations = map[string]bool{
	"export": true, "readonly": true, "declare": true, "typeset": true, "local": true,
}

// assigns reports whether word assigns a variable: NAME=VALUE, NAME in
// upper case, or in a POSIX shell any name (api_key=VALUE).
func assigns(word string, d dialect) bool {
	return envAssign().MatchString(word) || d == posix && shAssign().MatchString(word)
}

// assignment shows NAME=VALUE without its value, as arg shows NAME=VALUE
// in upper case. In a POSIX shell, NAME=$ before $( is kept (the
// substitution is read as commands), and a value that is a command
// substitution, NAME="$(...)", shows the substitution's commands, what
// echo and printf print there hidden.
func (h *hider) assignment(word string, d dialect) string {
	name, val, _ := strings.Cut(word, "=")
	if val == "" || val == "$" && d == posix {
		return word
	}
	if d == posix && (strings.Contains(val, "$(") || strings.Contains(val, "`")) {
		return name + "=" + h.substituted(val)
	}
	return name + "=" + h.hide(val)
}

// substituted shows the value of an assignment that holds command
// substitutions: one substitution, the value whole, shows its commands,
// what they print hidden; with text around it, the value is hidden, and
// so is what each substitution in it prints.
func (h *hider) substituted(val string) string {
	inners, whole := substitutionsIn(val)
	if whole {
		open, end := 1, 1 // `...`
		if val[0] == '$' {
			open = 2 // $(...)
		}
		return val[:open] + h.scripts([]string{val[open : len(val)-end]}, posix, scriptOpts{value: true})[0] + val[len(val)-end:]
	}
	for _, in := range inners {
		h.scripts([]string{in}, posix, scriptOpts{value: true})
	}
	return h.hide(val)
}

// substitutionsIn returns the commands of the command substitutions of
// val, $(...) and `...`, not those inside them (their commands are read
// with the command holding them), and whether val is one substitution,
// whole.
func substitutionsIn(val string) ([]string, bool) {
	var out []string
	whole := false
	for i := 0; i < len(val); i++ {
		switch {
		case strings.HasPrefix(val[i:], "$("):
			depth, j := 1, i+2
			for ; j < len(val) && depth > 0; j++ {
				switch val[j] {
				case '(':
					depth++
				case ')':
					depth--
				}
			}
			if depth == 0 {
				out = append(out, val[i+2:j-1])
				whole = whole || i == 0 && j == len(val)
			} else {
				out = append(out, val[i+2:])
			}
			i = j - 1
		case val[i] == '`':
			j := strings.IndexByte(val[i+1:], '`')
			if j < 0 {
				out = append(out, val[i+1:])
				i = len(val)
				break
			}
			out = append(out, val[i+1:i+1+j])
			whole = whole || i == 0 && i+2+j == len(val)
			i += j + 1
		}
	}
	return out, whole && len(out) == 1
}

// shAssign matches a POSIX shell's assignment of a variable.
var shAssign = lazyRegexp(`^[A-Za-z_][A-Za-z0-9_]*=`)

// psEnv matches PowerShell's assignment of an environment variable
// ($env:NAME, ${env:NAME}).
var psEnv = lazyRegexp(`(?i)^\$(env:[A-Za-z_][A-Za-z0-9_]*|\{env:[A-Za-z_][A-Za-z0-9_]*\})(=|$)`)

// rewrite is the edit that shows the word t of s as shown: the text
// outside what differs from the word's value is kept as written (quotes
// included), and what differs is written as shown; false when nothing
// differs.
func rewrite(s string, t token, shown string) (edit, bool) {
	v := string(t.value)
	if shown == v {
		return edit{}, false
	}
	p := 0
	for p < len(v) && p < len(shown) && v[p] == shown[p] {
		p++
	}
	q := 0
	for q < len(v)-p && q < len(shown)-p && v[len(v)-1-q] == shown[len(shown)-1-q] {
		q++
	}
	from, to := t.start, t.start
	switch {
	case p < len(v)-q:
		from, to = t.from[p], t.at[len(v)-q-1]+1
	case p > 0:
		from, to = t.at[p-1]+1, t.at[p-1]+1
	}
	return edit{from, to, shown[p : len(shown)-q]}, true
}

// freeText redacts a command string that cannot be split as free text
// ([Text]), and hides each word of it that looks like a credential.
func (h *hider) freeText(s string) string {
	s = h.text(s)
	var b strings.Builder
	done := 0 // s[:done] is in b
	for i := 0; i < len(s); {
		if isDSNSpace(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !isDSNSpace(s[j]) {
			j++
		}
		if LooksSecret(s[i:j]) {
			b.WriteString(s[done:i])
			b.WriteString(h.hide(s[i:j]))
			done = j
		}
		i = j
	}
	b.WriteString(s[done:])
	return b.String()
}

func digits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// slashS reports whether the switches of cmd that end before argv's end
// hold /s.
func slashS(argv []string) bool {
	for k := len(argv) - 1; k >= 0 && strings.HasPrefix(argv[k], "/"); k-- {
		if strings.EqualFold(argv[k], "/s") {
			return true
		}
	}
	return false
}

// env redacts env's command line from argv[i], env itself: its options,
// the string of -S (--split-string), split into words as a command line
// that go on with what follows it, its assignments NAME=VALUE, whose
// values are hidden whatever case NAME is in, and the command it runs,
// redacted as a command line of its own.
func (h *hider) env(argv []string, i int, out []string) {
	out[i] = argv[i]
	if h.depth >= maxDepth {
		for k := i + 1; k < len(argv); k++ {
			out[k] = h.hide(argv[k])
		}
		return
	}
	h.depth++
	defer func() { h.depth-- }()
	for k := i + 1; k < len(argv); k++ {
		a := argv[k]
		out[k] = a
		switch {
		case a == "--":
			copy(out[k+1:], h.args(argv[k+1:]))
			return
		case a == "-S" || a == "--split-string":
			if k+1 < len(argv) {
				h.splitString(argv, k+1, 0, out)
			}
			return
		case strings.HasPrefix(a, "--split-string="):
			h.splitString(argv, k, len("--split-string="), out)
			return
		case a == "-u" || a == "-C" || a == "--unset" || a == "--chdir":
			if k+1 < len(argv) {
				k++
				out[k] = argv[k]
			}
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			// Short options in one word: -iv, -uNAME, -Sstring, -vS string.
			j := strings.IndexAny(a[1:], "SuC") + 1
			switch {
			case j == 0:
			case a[j] != 'S':
				if j == len(a)-1 && k+1 < len(argv) { // -u NAME
					k++
					out[k] = argv[k]
				}
			case j < len(a)-1:
				h.splitString(argv, k, j+1, out)
				return
			case k+1 < len(argv):
				h.splitString(argv, k+1, 0, out)
				return
			}
		case strings.HasPrefix(a, "--") && strings.Contains(a, "="):
			// --unset=NAME, --chdir=DIR, or an option env does not have
			// (--token=X, which env refuses): read as any other
			// command's option, whose value a secret's name hides.
			out[k] = h.arg(a)
		case strings.HasPrefix(a, "-"):
			// --ignore-environment, -, ...
		case shAssign().MatchString(a):
			out[k] = h.assignment(a, 0)
		default:
			copy(out[k:], h.args(argv[k:]))
			return
		}
	}
}

// splitString redacts the string of env -S, argv[k] from its byte from:
// its words, and the words of argv after it, are env's command line.
func (h *hider) splitString(argv []string, k, from int, out []string) {
	s := argv[k][from:]
	toks, ok := split(s, envSplit)
	if !ok {
		out[k] = argv[k][:from] + h.freeText(s)
		copy(out[k+1:], h.args(argv[k+1:]))
		return
	}
	words := make([]string, 0, 1+len(toks)+len(argv)-k-1)
	words = append(words, "env")
	for _, t := range toks {
		words = append(words, string(t.value))
	}
	words = append(words, argv[k+1:]...)
	red := h.args(words)
	var edits []edit
	for n, t := range toks {
		if e, ok := rewrite(s, t, red[1+n]); ok {
			edits = append(edits, e)
		}
	}
	out[k] = argv[k][:from] + apply(s, edits)
	copy(out[k+1:], red[1+len(toks):])
}
