package measure

import (
	"fmt"

	"github.com/mcpcost/mcpcost/internal/canon"
	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/status"
	"github.com/mcpcost/mcpcost/internal/token"
)

// VerifySchema is the version of the JSON report of "mcpcost verify".
const VerifySchema = "mcpcost.verify/v1"

// Verification is what verify found in one measurement.json.
type Verification struct {
	File            string `json:"file"`
	ServerName      string `json:"serverName"`
	OK              bool   `json:"ok"`
	Status          string `json:"status"`
	Encoding        string `json:"encoding"`
	Methodology     string `json:"methodologyVersion"`
	Generator       string `json:"generator,omitempty"`
	StoredTokens    *int   `json:"storedTokens"`
	RederivedTokens *int   `json:"rederivedTokens"`
	StoredSha       string `json:"storedSha256,omitempty"`
	RederivedSha    string `json:"rederivedSha256,omitempty"`
	ToolCount       *int   `json:"toolCount"`
	ToolsChecked    int    `json:"toolsChecked"`
	// Skipped is set for a measurement that records a failure (its
	// status) and holds no capture and no count: there is nothing to
	// re-derive, and nothing it claims that could disagree. OK is false.
	Skipped  bool     `json:"skipped"`
	Problems []string `json:"problems"`
}

// NotMeasurementError says a JSON file is not a measurement.json at all.
type NotMeasurementError struct{ File, Msg string }

func (e *NotMeasurementError) Error() string { return e.File + ": " + e.Msg }

// Verify re-derives the count, hash and tool count of a measurement.json
// (mcpcost's or mcp-context-cost's) from its rawToolsCapture, and the
// per-tool numbers where they are stored. It returns an error only when data
// cannot be read as a measurement; every disagreement is a problem in the
// Verification.
func Verify(name string, data []byte, c token.Counter) (*Verification, error) {
	if c == nil {
		c = token.O200k()
	}
	// The nesting is checked as measure checks it (ParseInput), before
	// anything parses, so that verify passes no file measure refuses.
	data = trimBOM(data)
	depth := mcpclient.Depth(data)
	if depth > mcpclient.MaxDepth {
		return nil, depthError(name, 0, KindUnknown, depth)
	}
	doc, err := canon.Parse(data)
	if err != nil {
		return nil, &InputError{File: name, Msg: "not JSON: " + err.Error()}
	}
	if doc.Kind() != canon.Object {
		return nil, &NotMeasurementError{name, "not a measurement.json: expected an object, found " + kindName(doc)}
	}
	if doc.Get("rawToolsCapture") == nil && doc.Get("methodologyVersion") == nil && doc.Get("canonicalSha256") == nil {
		return nil, &NotMeasurementError{name, "not a measurement.json: no methodologyVersion, canonicalSha256 or rawToolsCapture"}
	}
	if d := depth + outerLevels[KindMeasurement]; d > mcpclient.MaxDepth {
		return nil, depthError(name, 0, KindMeasurement, d)
	}
	v := &Verification{
		File:        name,
		ServerName:  str(doc, "serverName"),
		Status:      str(doc, "status"),
		Encoding:    str(doc, "encoding"),
		Methodology: str(doc, "methodologyVersion"),
		Generator:   str(doc, "generator"),
		StoredSha:   str(doc, "canonicalSha256"),
		Problems:    []string{},
	}
	if v.ServerName == "" {
		v.ServerName = name
	}
	v.StoredTokens = intField(doc, "totalTokens")
	problem := func(format string, a ...any) { v.Problems = append(v.Problems, fmt.Sprintf(format, a...)) }

	if v.Encoding != "" && v.Encoding != token.Encoding {
		problem("encoding %q cannot be re-derived: mcpcost counts %s", v.Encoding, token.Encoding)
	}
	if v.Methodology != "" && v.Methodology != MethodologyVersion {
		problem("methodology %q is not %s, the version mcpcost re-derives", v.Methodology, MethodologyVersion)
	}
	raw := doc.Get("rawToolsCapture")
	if raw == nil || raw.Kind() == canon.Null {
		if !status.Status(v.Status).OrMeasured().OK() {
			if len(v.Problems) == 0 && (v.StoredTokens == nil || *v.StoredTokens == 0) {
				v.Skipped = true
				return v, nil
			}
			problem("no rawToolsCapture in measurement: nothing was measured (status %s), yet it stores %d tokens", v.Status, *v.StoredTokens)
		} else {
			problem("no rawToolsCapture in measurement")
		}
		return v, nil
	}
	if raw.Kind() != canon.Array {
		problem("rawToolsCapture is %s, not an array of tools", kindName(raw))
		return v, nil
	}
	tools := raw.Elems()
	for i, t := range tools {
		if t.Kind() != canon.Object {
			problem("rawToolsCapture[%d] is %s, not an object", i, kindName(t))
			return v, nil
		}
	}
	r := Tools(tools, c)
	v.RederivedTokens = &r.TotalTokens
	v.RederivedSha = r.CanonicalSha256
	n := len(tools)
	v.ToolCount = &n

	if v.StoredTokens == nil {
		problem("no totalTokens stored")
	} else if *v.StoredTokens != r.TotalTokens {
		problem("token mismatch: re-derived %d, stored %d", r.TotalTokens, *v.StoredTokens)
	}
	if v.StoredSha == "" {
		problem("no canonicalSha256 stored")
	} else if v.StoredSha != r.CanonicalSha256 {
		problem("sha mismatch: re-derived %s, stored %s", r.CanonicalSha256, v.StoredSha)
	}
	if tc := intField(doc, "toolCount"); tc == nil {
		problem("no toolCount stored")
	} else if *tc != n {
		problem("toolCount mismatch: capture has %d, stored %d", n, *tc)
	}
	// Per-tool numbers, where stored, in capture order.
	if st := doc.Get("tools"); st != nil && st.Kind() == canon.Array {
		stored := st.Elems()
		if len(stored) != 0 && len(stored) != n {
			problem("tools list has %d entries, capture has %d tools", len(stored), n)
		} else {
			for i, s := range stored {
				got := r.Tools[i]
				if name := str(s, "name"); name != "" && name != got.Name {
					problem("tool %d: name mismatch: capture has %q, stored %q", i+1, got.Name, name)
					continue
				}
				check := func(field string, want int) {
					if x := intField(s, field); x != nil && *x != want {
						problem("tool %s: %s mismatch: re-derived %d, stored %d", got.Name, field, want, *x)
					}
				}
				check("tokens", got.Tokens)
				check("descriptionTokens", got.DescriptionTokens)
				check("inputSchemaTokens", got.InputSchemaTokens)
				v.ToolsChecked++
			}
		}
	}
	v.OK = len(v.Problems) == 0
	return v, nil
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
		return b[3:]
	}
	return b
}

func str(v *canon.Value, key string) string {
	if x := v.Get(key); x != nil && x.Kind() == canon.String {
		return x.Str()
	}
	return ""
}

func intField(v *canon.Value, key string) *int {
	x := v.Get(key)
	if x == nil || x.Kind() != canon.Number {
		return nil
	}
	n := int(x.Num())
	if float64(n) != x.Num() {
		return nil
	}
	return &n
}
