package render

import (
	"io"
	"strings"

	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// A Screen is what a text rendering is fitted to: the terminal's width in
// columns (0 for no limit) and whether it is shown in colour.
type Screen struct {
	Width int
	Color bool
}

// A Tint is the colour of a word that says how things stand. Colour is
// never the only signal: the word itself says it (HIGH, FAIL, +1,234).
type Tint int

const (
	Plain Tint = iota
	Bad        // HIGH, FAIL, an increase in cost
	Warn       // WARN, an unmeasured server, partial
	Info       // INFO
	Good       // OK, a decrease in cost
	Dim        // what is there for reference
)

// sgr are the Select Graphic Rendition sequences of the tints; reset ends
// each.
var sgr = [...]string{Plain: "", Bad: "\x1b[1;31m", Warn: "\x1b[33m", Info: "\x1b[36m", Good: "\x1b[32m", Dim: "\x1b[2m"}

const reset = "\x1b[0m"

// Colours travel through a rendering as marks, Unicode noncharacters
// U+FDD0 (the end of a tinted span) and U+FDD0+Tint (its start), which
// [textsafe.Text] escapes in data: only a renderer's [Paint] makes them.
// [Emit] turns them into escape sequences for a screen in colour and drops
// them for any other.
const markEnd = '\uFDD0'

func isMark(r rune) bool { return r >= markEnd && r <= markEnd+rune(Dim) }

// Paint tints s (escaped already) when colour is on; it returns s as it is
// otherwise.
func (s Screen) Paint(t Tint, text string) string {
	if !s.Color || t == Plain || text == "" {
		return text
	}
	return string(markEnd+rune(t)) + text + string(markEnd)
}

// Emit writes a text rendering: every part of it through [textsafe.Lines]
// (a last guard for data a renderer left unescaped), and its colour marks
// as escape sequences when color is set, else not at all.
func Emit(w io.Writer, s string, color bool) error {
	return Screen{Color: color}.Emit(w, s)
}

// Emit writes a text rendering for the screen: as the package's [Emit]
// does, with any line still wider than the screen wrapped under its own
// indent.
func (scr Screen) Emit(w io.Writer, s string) error {
	s = guard(s)
	if scr.Width > 0 {
		var out []string
		for _, l := range strings.Split(s, "\n") {
			if Width(l) <= scr.Width {
				out = append(out, l)
				continue
			}
			indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
			if Width(indent) > scr.Width/2 {
				indent = ""
			}
			out = append(out, Wrap(indent, l, indent+"  ", scr.Width)...)
		}
		s = strings.Join(out, "\n")
	}
	_, err := io.WriteString(w, marks(s, scr.Color))
	return err
}

// guard escapes s with [textsafe.Lines], but for its colour marks.
func guard(s string) string {
	if !strings.ContainsFunc(s, isMark) {
		return textsafe.Lines(s)
	}
	var b strings.Builder
	for {
		i := strings.IndexFunc(s, isMark)
		if i < 0 {
			b.WriteString(textsafe.Lines(s))
			return b.String()
		}
		b.WriteString(textsafe.Lines(s[:i]))
		b.WriteString(s[i : i+3]) // each mark is three bytes of UTF-8
		s = s[i+3:]
	}
}

// marks turns the colour marks of s into escape sequences, or drops them.
func marks(s string, color bool) string {
	if !strings.ContainsFunc(s, isMark) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !isMark(r):
			b.WriteRune(r)
		case !color:
		case r == markEnd:
			b.WriteString(reset)
		default:
			b.WriteString(sgr[r-markEnd])
		}
	}
	return b.String()
}

// write writes a rendering through [Emit], without colour.
func write(w io.Writer, s string) error { return Emit(w, s, false) }

// LevelTint is the tint of a finding's or a check's level word.
func LevelTint(level string) Tint {
	switch strings.ToUpper(level) {
	case "HIGH", "FAIL", "ERROR":
		return Bad
	case "WARN", "WARNING", "PARTIAL", "SKIP", "UNMEASURED":
		return Warn
	case "INFO":
		return Info
	case "OK", "PASS":
		return Good
	}
	return Plain
}
