package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/textsafe"
)

// VerificationText writes one file's verification for a terminal: "OK",
// "SKIP" or "FAIL" (in colour where the screen has it), the server and
// its file, then what agrees or each problem, wrapped to the screen.
func VerificationText(w io.Writer, v *measure.Verification, scr Screen) error {
	var b strings.Builder
	head := textsafe.Text(v.ServerName) + " (" + textsafe.Text(v.File) + "): "
	line := func(head, text string) {
		for _, l := range Wrap(head, text, "    ", scr.Width) {
			b.WriteString(l + "\n")
		}
	}
	switch {
	case v.Skipped:
		line(scr.Paint(Warn, "SKIP")+" "+head, "status "+textsafe.Text(v.Status)+": the measurement failed and holds no capture, so there is nothing to re-derive")
	case v.OK:
		text := "? tokens"
		if v.RederivedTokens != nil {
			text = num.Int(*v.RederivedTokens) + " tokens"
		}
		text += fmt.Sprintf(" (%s, methodology %s): capture, hash and count agree", textsafe.Text(v.Encoding), textsafe.Text(v.Methodology))
		if v.ToolsChecked > 0 {
			text += fmt.Sprintf(", and %s per-tool %s", num.Int(v.ToolsChecked), num.Plural(v.ToolsChecked, "count", "counts"))
		}
		line(scr.Paint(Good, "OK")+" "+head, text)
	default:
		b.WriteString(strings.TrimRight(scr.Paint(Bad, "FAIL")+" "+head, " ") + "\n")
		for _, p := range v.Problems {
			line("  - ", textsafe.Text(p))
		}
	}
	return scr.Emit(w, b.String())
}
