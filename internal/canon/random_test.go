package canon

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// randomDoc writes a random JSON-like document rich in the cases where
// ECMAScript and a naive implementation disagree: number spellings near
// the formatting thresholds, escapes and lone surrogates, invalid UTF-8,
// array-index and duplicate keys. A few are made invalid on purpose.
type randomDoc struct {
	r   *rand.Rand
	out []byte
}

var docKeys = []string{"a", "b", "type", "0", "1", "2", "10", "01", "-1", "4294967294", "4294967295",
	"4294967296", "", "__proto__", `\u0061`, `\u0031`, `\ud800`, `\ufffd`, "é", "\xff", " 1", "1.0"}

func (d *randomDoc) value(depth int) {
	switch n := d.r.IntN(10); {
	case depth < 4 && n < 2:
		d.out = append(d.out, '[')
		for i := range d.r.IntN(5) {
			if i > 0 {
				d.out = append(d.out, ',')
			}
			d.ws()
			d.value(depth + 1)
			d.ws()
		}
		d.out = append(d.out, ']')
	case depth < 4 && n < 4:
		d.out = append(d.out, '{')
		for i := range d.r.IntN(6) {
			if i > 0 {
				d.out = append(d.out, ',')
			}
			d.ws()
			d.out = append(d.out, '"')
			d.out = append(d.out, docKeys[d.r.IntN(len(docKeys))]...)
			d.out = append(d.out, '"', ':')
			d.value(depth + 1)
		}
		d.out = append(d.out, '}')
	case n < 7:
		d.number()
	case n < 9:
		d.string()
	default:
		d.out = append(d.out, []string{"true", "false", "null"}[d.r.IntN(3)]...)
	}
}

func (d *randomDoc) ws() {
	if d.r.IntN(4) == 0 {
		d.out = append(d.out, " \t\n\r"[d.r.IntN(4)])
	}
}

func (d *randomDoc) number() {
	switch d.r.IntN(6) {
	case 0: // any double, in some spelling
		f := math.Float64frombits(d.r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			f = 0
		}
		fmtc := "eEfg"[d.r.IntN(4)]
		d.out = strconv.AppendFloat(d.out, f, fmtc, d.r.IntN(25)-1, 64)
	case 1: // long integers around 2^53 and beyond
		d.out = strconv.AppendUint(d.out, d.r.Uint64()>>d.r.IntN(64), 10)
		for range d.r.IntN(8) {
			d.out = append(d.out, byte('0'+d.r.IntN(10)))
		}
	case 2: // powers of ten near the thresholds 1e-7 and 1e21
		if d.r.IntN(2) == 0 {
			d.out = append(d.out, '-')
		}
		d.out = append(d.out, byte('1'+d.r.IntN(9)))
		if d.r.IntN(2) == 0 {
			d.out = append(d.out, '.')
			for range 1 + d.r.IntN(4) {
				d.out = append(d.out, byte('0'+d.r.IntN(10)))
			}
		}
		d.out = append(d.out, 'e')
		d.out = strconv.AppendInt(d.out, int64(d.r.IntN(40)-20), 10)
	case 3: // decimals with many digits
		d.out = append(d.out, "0."...)
		for range d.r.IntN(30) {
			d.out = append(d.out, '0')
		}
		for range 1 + d.r.IntN(25) {
			d.out = append(d.out, byte('0'+d.r.IntN(10)))
		}
	case 4:
		d.out = append(d.out, []string{"-0", "0", "-0.0", "0e0", "1e308", "1e309", "5e-324", "2e-324", "1e-400",
			"9007199254740993", "1E+2", "1e-7", "1e21", "0.000001"}[d.r.IntN(14)]...)
	default:
		d.out = strconv.AppendInt(d.out, d.r.Int64N(2000)-1000, 10)
	}
}

func (d *randomDoc) string() {
	d.out = append(d.out, '"')
	for range d.r.IntN(8) {
		switch d.r.IntN(12) {
		case 0:
			d.out = fmt.Appendf(d.out, `\u%04x`, d.r.IntN(0x10000))
		case 1:
			d.out = fmt.Appendf(d.out, `\u%04X`, 0xD800+d.r.IntN(0x800))
		case 2:
			d.out = append(d.out, []string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`}[d.r.IntN(8)]...)
		case 3:
			d.out = append(d.out, byte(0x80+d.r.IntN(0x80)))
		case 4:
			d.out = append(d.out, []string{"é", "中", "😀", "\u2028", "\u007f", "\ufeff", "\U0010ffff"}[d.r.IntN(7)]...)
		case 5:
			d.out = append(d.out, []string{"\xed\xa0\x80", "\xf0\x9f\x98", "\xe2\x82", "\xc0\xaf", "\xf4\x90\x80\x80"}[d.r.IntN(5)]...)
		case 6:
			d.out = append(d.out, `\ud83d\ude00`...)
		default:
			d.out = append(d.out, "abc <>&'xyz"[d.r.IntN(11)])
		}
	}
	d.out = append(d.out, '"')
}

// randomInput returns a random document; one in eight gets a random byte
// changed, which usually makes it invalid.
func randomInput(r *rand.Rand) []byte {
	d := randomDoc{r: r}
	d.value(0)
	if r.IntN(8) == 0 && len(d.out) > 0 {
		d.out[r.IntN(len(d.out))] = byte(r.IntN(256))
	}
	return d.out
}

var (
	randomCount = flag.Int("random", 3000, "number of random documents TestNodeRandom compares with node")
	randomSeed  = flag.Uint64("random-seed", 1, "seed of TestNodeRandom")
)

// TestNodeRandom compares Transform with Node on random documents built to
// hit the formatting rules.
func TestNodeRandom(t *testing.T) {
	n := startNode(t)
	count := *randomCount
	if testing.Short() {
		count = min(count, 300)
	}
	r := rand.New(rand.NewPCG(*randomSeed, 2))
	for range count {
		checkNode(t, n, randomInput(r))
	}
}
