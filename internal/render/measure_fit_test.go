package render

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcost/mcpcost/internal/measure"
)

// filesystemMeasure is the npm filesystem server's measurement (its tools'
// parts as it lists them for the folder "."), heaviest first.
func filesystemMeasure() *measure.Report {
	parts := []string{"name", "title", "description", "inputSchema", "outputSchema", "annotations", "other"}
	rows := []struct {
		name   string
		tokens int
		share  float64
		parts  []int
	}{
		{"read_media_file", 290, .103, []int{6, 6, 49, 37, 170, 15, 9}},
		{"read_text_file", 256, .091, []int{6, 6, 99, 81, 42, 15, 9}},
		{"edit_file", 245, .087, []int{5, 5, 37, 121, 42, 28, 9}},
		{"search_files", 218, .077, []int{5, 5, 81, 63, 42, 15, 9}},
		{"read_multiple_files", 210, .074, []int{6, 6, 60, 74, 42, 15, 9}},
		{"directory_tree", 202, .072, []int{5, 5, 74, 54, 42, 15, 9}},
		{"list_directory_with_sizes", 201, .071, []int{7, 7, 58, 65, 42, 15, 9}},
		{"move_file", 192, .068, []int{5, 5, 59, 46, 42, 28, 9}},
		{"read_file", 179, .063, []int{5, 7, 21, 81, 42, 15, 9}},
		{"create_directory", 177, .063, []int{5, 5, 53, 37, 42, 28, 9}},
		{"write_file", 174, .062, []int{5, 5, 41, 46, 42, 28, 9}},
		{"list_directory", 166, .059, []int{5, 5, 55, 37, 42, 15, 9}},
		{"get_file_info", 162, .057, []int{6, 6, 49, 37, 42, 15, 9}},
		{"list_allowed_directories", 149, .053, []int{7, 7, 43, 27, 42, 15, 9}},
	}
	r := &measure.Report{
		Schema: measure.Schema, Server: "secure-filesystem-server", Status: "measured", MethodologyVersion: "1.0", Encoding: "o200k_base",
		TotalTokens: 2823, ToolCount: len(rows), CanonicalBytes: 12345, CanonicalSha256: strings.Repeat("0", 64),
		Note: "per-tool counts add up to 2,821, not 2,823: the total counts the whole canonical array once",
	}
	for _, row := range rows {
		tool := measure.Tool{Name: row.name, Tokens: row.tokens, Share: row.share}
		for i, n := range row.parts {
			tool.Parts = append(tool.Parts, measure.Part{Name: parts[i], Tokens: n})
		}
		r.Tools = append(r.Tools, tool)
	}
	return r
}

// measure's table of parts, fitted to a terminal, leaves out its lightest
// parts first (filesystem's name and title, 5 to 7 tokens a tool, before
// its outputSchema, 42 to 170), and a wider terminal never shows less of a
// tool's name than a narrower one. Golden at 80, 100 and 120 columns:
// go test ./internal/render -run TestMeasureFit -update rewrites them.
func TestMeasureFit(t *testing.T) {
	r := filesystemMeasure()
	text := func(width int) string {
		var b bytes.Buffer
		if err := MeasureText(&b, r, Screen{Width: width}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, width := range []int{80, 100, 120} {
		got := text(width)
		golden := filepath.Join("testdata", "measure", fmt.Sprintf("filesystem-%d.txt", width))
		if updating() {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Errorf("%v (-update to write it)", err)
			continue
		}
		if got != string(want) {
			t.Errorf("%d columns: differs from %s (-update to rewrite):\n%s", width, golden, got)
		}
	}
	for width, want := range map[int]string{
		80:  "Left out at this width: name, title, outputSchema, annotations, other (",
		100: "Left out at this width: name, title, other (",
	} {
		if got := text(width); !strings.Contains(got, want) {
			t.Errorf("%d columns: want %q, got\n%s", width, want, got)
		}
	}
	// The widest name, as shown at each width, never shrinks as the
	// terminal widens.
	const long = "list_allowed_directories"
	shown := func(out string) int {
		for _, l := range strings.Split(out, "\n") {
			f := strings.Fields(l)
			if len(f) > 0 && strings.HasPrefix(long, strings.TrimSuffix(f[0], "…")) && strings.HasPrefix(f[0], "list_a") {
				return Width(strings.TrimSuffix(f[0], "…"))
			}
		}
		return 0
	}
	prev := 0
	for width := 60; width <= 160; width++ {
		n := shown(text(width))
		if n < prev {
			t.Errorf("%d columns show %d characters of %s, a narrower terminal %d", width, n, long, prev)
		}
		prev = max(prev, n)
	}
}

// With Keep, a cut column is never shown narrower than at a narrower
// width, up to Keep columns; without it, each width cuts before it leaves
// out, as ccusage does.
func TestTableKeep(t *testing.T) {
	name := strings.Repeat("n", 40)
	shown := func(keep, width int) int {
		tb := Table{Header: []string{"NAME", "A", "B", "C"}, Align: []Align{Left, Right, Right, Right}, Min: []int{20}, Drop: []int{0, 3, 2, 1}, Keep: keep, Width: width}
		tb.Add(name, "1,000", "2,000", "3,000")
		tb.Add("short", "1", "2", "3")
		out := tb.String()
		checkFits(t, "table", width, out)
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "nnn") {
				return Width(strings.Fields(l)[0]) // the column's width, its ellipsis too
			}
		}
		t.Fatalf("keep %d, width %d: no name in\n%s", keep, width, out)
		return 0
	}
	for _, keep := range []int{24, 40} {
		prev := 0
		for width := 30; width <= 80; width++ {
			n := shown(keep, width)
			if n < min(prev, keep) {
				t.Errorf("keep %d: %d columns show %d of the name, a narrower terminal %d", keep, width, n, prev)
			}
			prev = max(prev, n)
		}
	}
	// Without Keep: at 41 columns the name is cut to keep every column.
	if n := shown(0, 41); n != 41-3*(5+2) {
		t.Errorf("without Keep, 41 columns show %d of the name", n)
	}
}
