package mcpcost

import (
	"testing"

	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/token"
)

// TestConstants: the package's constants are its own (no internal name in
// its API), and agree with the internal ones.
func TestConstants(t *testing.T) {
	if MethodologyVersion != measure.MethodologyVersion || DefaultTimeout != mcpclient.DefaultTimeout ||
		MaxInputBytes != measure.DefaultMaxBytes || Encoding != token.Encoding {
		t.Error("a constant differs from the internal one")
	}
	for i, n := range []string{PartName, PartTitle, PartDescription, PartInputSchema, PartOutputSchema, PartAnnotations, PartMeta, PartOther} {
		if measure.PartNames[i] != n {
			t.Errorf("part %d is %q, measure has %q", i, n, measure.PartNames[i])
		}
	}
}
