package mcpcost

import (
	"github.com/mcpcost/mcpcost/internal/measure"
	"github.com/mcpcost/mcpcost/internal/outfile"
	"github.com/mcpcost/mcpcost/internal/status"
)

// Generator is what measurement.json files written by this package
// record as their generator.
const Generator = "mcpcost library"

// MarshalFile returns m as measurement.json: mcp-context-cost's fields in
// its order (so that either tool verifies it), then mcpcost's, indented
// with two spaces. Its rawToolsCapture gives the canonical bytes back
// under JSON.stringify, so that [Verify] (or "mcpcost verify", or
// mcp-context-cost's verify) re-derives every number from it.
func (m *Measurement) MarshalFile() ([]byte, error) {
	f := measure.NewFile(m.result, status.Status(m.Status), m.Name, Generator, m.MeasuredAt)
	f.Source = m.source
	if m.live {
		f.ServerVersion = m.ServerVersion
		f.ServerInstructions = measure.InstructionsJSON(m.instructions)
		f.ChangedTools = m.ChangedTools
		f.Warnings = m.Warnings
		if x := m.Extras; x != nil {
			f.Extras = &measure.Extras{InstructionsTokens: x.InstructionsTokens, Prompts: x.Prompts, PromptsTokens: x.PromptsTokens,
				Resources: x.Resources, ResourcesTokens: x.ResourcesTokens, ResourceTemplates: x.ResourceTemplates,
				ResourceTemplatesTokens: x.ResourceTemplatesTokens, SessionStartTokens: m.Claude.SessionStartTokens}
		}
	}
	return f.Marshal()
}

// WriteFile writes m as measurement.json at path (see
// [Measurement.MarshalFile]), of mode 0666 less the umask (0644 under the
// usual umask 022, as os.Create makes it), as "mcpcost measure --out"
// does: a new file in path's folder, synced and renamed
// over path, so that path holds the old file or the new one, never a
// part of one, and a symbolic link at path is replaced, not written
// through. On an error path is left as it was. A path below /dev
// (/dev/stdout) is written through.
func (m *Measurement) WriteFile(path string) error {
	b, err := m.MarshalFile()
	if err != nil {
		return err
	}
	return outfile.Write(path, b, outfile.Shared)
}

// A Verification is what [Verify] found in a measurement.json.
type Verification struct {
	ServerName string
	Status     string
	// OK is set when every number re-derived from the capture agrees
	// with the one stored.
	OK bool
	// Skipped is set for a file that records a failed measurement (its
	// Status) and holds no capture and no count: there is nothing to
	// re-derive. OK is false.
	Skipped bool
	// StoredTokens and RederivedTokens are nil when absent.
	StoredTokens    *int
	RederivedTokens *int
	StoredSHA256    string
	RederivedSHA256 string
	ToolCount       *int
	// ToolsChecked counts the per-tool entries checked.
	ToolsChecked int
	// Problems lists every disagreement, as "mcpcost verify" words it.
	Problems []string
}

// Verify re-derives the count, hash and tool count of a measurement.json
// (written by this package, by mcpcost or by mcp-context-cost) from its
// rawToolsCapture, and the per-tool numbers where it stores them. It
// returns an error only when data is not a measurement.json; every
// disagreement is a problem in the Verification.
func Verify(data []byte) (*Verification, error) { return verify("measurement.json", data) }

// VerifyFile verifies the measurement.json at path (see [Verify]).
func VerifyFile(path string) (*Verification, error) {
	data, err := readLimited(path)
	if err != nil {
		return nil, err
	}
	return verify(path, data)
}

func verify(name string, data []byte) (*Verification, error) {
	v, err := measure.Verify(name, data, nil)
	if err != nil {
		return nil, inputError(err)
	}
	return &Verification{
		ServerName:      v.ServerName,
		Status:          v.Status,
		OK:              v.OK,
		Skipped:         v.Skipped,
		StoredTokens:    v.StoredTokens,
		RederivedTokens: v.RederivedTokens,
		StoredSHA256:    v.StoredSha,
		RederivedSHA256: v.RederivedSha,
		ToolCount:       v.ToolCount,
		ToolsChecked:    v.ToolsChecked,
		Problems:        append([]string{}, v.Problems...),
	}, nil
}
