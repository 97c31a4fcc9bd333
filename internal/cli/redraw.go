package cli

import (
	"strings"

	"github.com/mcpcost/mcpcost/internal/render"
)

// Text redrawn in place on a terminal: one line over itself (progress on
// stderr) or a whole screen over itself (blocks --live on stdout). Both
// clear what a longer earlier drawing left.

// eraseLine returns to the line's start and clears it.
const eraseLine = "\r\x1b[K"

// redrawLine is text drawn over the current line, cut to width-1 columns:
// the last column stays free, as a terminal that wraps there would scroll
// instead of redrawing. A width of 0 or less is taken as 80.
func redrawLine(text string, width int) string {
	if width <= 0 {
		width = 80
	}
	return eraseLine + render.Truncate(text, width-1)
}

// redrawScreen is a frame drawn from the top left (the screen cleared
// first for the first frame), each line cleared to its end, then whatever
// an earlier, longer frame left below it cleared.
func redrawScreen(frame string, first bool) string {
	var b strings.Builder
	if first {
		b.WriteString("\x1b[2J")
	}
	b.WriteString("\x1b[H")
	b.WriteString(strings.ReplaceAll(frame, "\n", "\x1b[K\n"))
	b.WriteString("\x1b[J")
	return b.String()
}
