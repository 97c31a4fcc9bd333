package diff

import (
	"fmt"

	"github.com/mcpcost/mcpcost/internal/num"
)

// Gate is the verdict of --max-increase: it passes only when every config
// was compared exactly (or with an upper bound) and no config's increase is
// over the limit. Every reason it fails is listed.
type Gate struct {
	MaxIncrease int  `json:"maxIncrease"`
	Pass        bool `json:"pass"`
	// Increase is the largest increase of a compared config; nil when
	// nothing was compared.
	Increase *int    `json:"increase"`
	Reasons  []Issue `json:"reasons"`
}

// Check checks the diff against a limit on the increase per request, sets
// d.Gate and returns it. A server measured now and not in the baseline
// makes a config's delta an upper bound: within the limit it passes, over
// it the increase could not be established and it fails as such.
func (d *Diff) Check(maxIncrease int) *Gate {
	g := &Gate{MaxIncrease: maxIncrease, Increase: d.Increase, Reasons: []Issue{}}
	g.Reasons = append(g.Reasons, d.Issues...)
	for _, c := range d.ConfigDiffs {
		if c.Delta == nil || c.Change == ConfigNew || c.Change == ConfigMissing || *c.Delta <= maxIncrease {
			continue
		}
		name := c.Name()
		switch c.Bound {
		case "upper":
			paid := "the baseline also paid for servers it could not measure"
			if c.Overstated > 0 {
				paid = num.Int(c.Overstated) + " of it was already paid in the baseline, unmeasured"
			}
			g.Reasons = append(g.Reasons, Issue{Code: IssueUnmeasuredBefore, Config: c.Path, Message: fmt.Sprintf("%s: %s tokens per request measured, over the %s allowed, but %s: the increase could not be established", name, num.Signed(*c.Delta), num.Int(maxIncrease), paid)})
		default:
			g.Reasons = append(g.Reasons, Issue{Code: IssueOverLimit, Config: c.Path, Message: fmt.Sprintf("%s: %s tokens per request, over the %s allowed", name, num.Signed(*c.Delta), num.Int(maxIncrease))})
		}
	}
	g.Pass = len(g.Reasons) == 0
	d.Gate = g
	return g
}

// LoadFailure is the gate's verdict when a report could not be read at all:
// it fails, naming the file.
func LoadFailure(maxIncrease int, err error) *Gate {
	return &Gate{MaxIncrease: maxIncrease, Reasons: []Issue{{Code: IssueNotAReport, Message: err.Error()}}}
}
