// Command measure benchmarks "mcpcost measure FILE" as a whole process
// against the plainest Go program that gives the published methodology's
// figures: encoding/json to read the tools and write their canonical
// JSON, github.com/tiktoken-go/tokenizer to count.
//
//	measure gen -corpus DIR -out FILE [-mb 5]   write the tools list
//	measure plain -file FILE                    the plain reference, one run
//	measure run -mcpcost BIN -file FILE [-runs 5]
//
// run starts the two in turn, mcpcost first, then the reference, RUNS
// times after one warm-up of each, checks that they give the same figures
// and prints the wall and CPU time of each, and the ratio reference /
// mcpcost pair by pair (min, median, max). run.sh does all of it.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/tiktoken-go/tokenizer"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: measure gen|plain|run [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "plain":
		err = plain(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(1)
	}
}

// gen writes a tools/list result ({"tools":[...]}) of at least mb MB: the
// tools of every canonical.json of the corpus, in name order, repeated
// until the list is long enough.
func gen(args []string) error {
	fl := flag.NewFlagSet("gen", flag.ContinueOnError)
	corpus := fl.String("corpus", "", "the tools/list corpus (a folder of <server>/canonical.json)")
	out := fl.String("out", "", "output file")
	mb := fl.Float64("mb", 5, "size in MB")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *corpus == "" || *out == "" {
		return errors.New("gen needs -corpus and -out")
	}
	files, err := filepath.Glob(filepath.Join(*corpus, "*", "canonical.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no */canonical.json under %s", *corpus)
	}
	sort.Strings(files)
	var tools []json.RawMessage
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var ts []json.RawMessage
		if err := json.Unmarshal(b, &ts); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		tools = append(tools, ts...)
	}
	var b bytes.Buffer
	b.WriteString(`{"tools":[`)
	for n := 0; b.Len() < int(*mb*1e6); n++ {
		if n > 0 {
			b.WriteByte(',')
		}
		b.Write(tools[n%len(tools)])
	}
	b.WriteString("]}")
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		return err
	}
	sum := sha256.Sum256(b.Bytes())
	fmt.Printf("%s: %d bytes, sha256 %s\n", filepath.Base(*out), b.Len(), hex.EncodeToString(sum[:8]))
	return nil
}

// figures are what both programs give: the methodology's measurement.
type figures struct {
	TotalTokens     int    `json:"totalTokens"`
	ToolCount       int    `json:"toolCount"`
	CanonicalSha256 string `json:"canonicalSha256"`
	Tools           []struct {
		Name              string `json:"name"`
		Tokens            int    `json:"tokens"`
		DescriptionTokens int    `json:"descriptionTokens"`
		InputSchemaTokens int    `json:"inputSchemaTokens"`
	} `json:"tools"`
}

// plain is the reference: read the tools with encoding/json, write the
// canonical array (the input is JSON.stringify output, so json.Compact
// keeps its bytes), count the array, each tool, each description and each
// inputSchema with tiktoken-go, and print the figures.
func plain(args []string) error {
	fl := flag.NewFlagSet("plain", flag.ContinueOnError)
	file := fl.String("file", "", "a tools/list result")
	if err := fl.Parse(args); err != nil {
		return err
	}
	data, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return err
	}
	count := func(s string) int { n, _ := codec.Count(s); return n }
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return err
	}
	var canonical bytes.Buffer
	canonical.WriteByte('[')
	type tool struct {
		Name              string `json:"name"`
		Tokens            int    `json:"tokens"`
		DescriptionTokens int    `json:"descriptionTokens"`
		InputSchemaTokens int    `json:"inputSchemaTokens"`
	}
	tools := make([]tool, len(list.Tools))
	for i, raw := range list.Tools {
		var one bytes.Buffer
		if err := json.Compact(&one, raw); err != nil {
			return err
		}
		if i > 0 {
			canonical.WriteByte(',')
		}
		canonical.Write(one.Bytes())
		var fields struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(raw, &fields); err != nil {
			return err
		}
		t := tool{Name: fields.Name, Tokens: count(one.String())}
		if fields.Description != "" {
			t.DescriptionTokens = count(fields.Description)
		}
		if len(fields.InputSchema) > 0 {
			var schema bytes.Buffer
			if err := json.Compact(&schema, fields.InputSchema); err != nil {
				return err
			}
			t.InputSchemaTokens = count(schema.String())
		}
		tools[i] = t
	}
	canonical.WriteByte(']')
	sum := sha256.Sum256(canonical.Bytes())
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"totalTokens":     count(canonical.String()),
		"toolCount":       len(tools),
		"canonicalSha256": hex.EncodeToString(sum[:]),
		"tools":           tools,
	})
}

// timing is one finished process.
type timing struct{ wall, cpu float64 } // seconds

func runOnce(name string, args []string) (timing, []byte, error) {
	cmd := exec.Command(name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start).Seconds()
	if err != nil {
		return timing{}, nil, fmt.Errorf("%s: %v: %s", filepath.Base(name), err, errb.String())
	}
	cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	return timing{wall, cpu}, out.Bytes(), nil
}

func run(args []string) error {
	fl := flag.NewFlagSet("run", flag.ContinueOnError)
	bin := fl.String("mcpcost", "", "the mcpcost binary")
	file := fl.String("file", "", "the tools list")
	runs := fl.Int("runs", 5, "timed pairs after one warm-up")
	if err := fl.Parse(args); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "bench-measure")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "measurement.json")
	ours := []string{"measure", *file, "--json", "--out", out}
	theirs := []string{"plain", "-file", *file}
	var a, b []timing
	for i := 0; i <= *runs; i++ {
		ta, outA, err := runOnce(*bin, ours)
		if err != nil {
			return err
		}
		tb, outB, err := runOnce(self, theirs)
		if err != nil {
			return err
		}
		if i == 0 {
			if err := same(outA, outB); err != nil {
				return err
			}
			continue // the warm-up
		}
		a, b = append(a, ta), append(b, tb)
	}
	fmt.Printf("%-28s %-22s %-22s\n", "", "wall s (min/med/max)", "CPU s (min/med/max)")
	row := func(name string, ts []timing, f func(i int) (float64, float64)) {
		var w, c []float64
		for i := range ts {
			x, y := f(i)
			w, c = append(w, x), append(c, y)
		}
		fmt.Printf("%-28s %-22s %-22s\n", name, stats(w), stats(c))
	}
	row("mcpcost measure", a, func(i int) (float64, float64) { return a[i].wall, a[i].cpu })
	row("plain (encoding/json+tiktoken-go)", b, func(i int) (float64, float64) { return b[i].wall, b[i].cpu })
	row("ratio plain/mcpcost", a, func(i int) (float64, float64) { return b[i].wall / a[i].wall, b[i].cpu / a[i].cpu })
	return nil
}

// same checks that mcpcost's --json report and the reference agree on
// every figure they share.
func same(ours, theirs []byte) error {
	var a, b figures
	if err := json.Unmarshal(ours, &a); err != nil {
		return fmt.Errorf("mcpcost's report: %w", err)
	}
	if err := json.Unmarshal(theirs, &b); err != nil {
		return fmt.Errorf("the reference's output: %w", err)
	}
	if a.TotalTokens != b.TotalTokens || a.ToolCount != b.ToolCount || a.CanonicalSha256 != b.CanonicalSha256 || len(a.Tools) != len(b.Tools) {
		return fmt.Errorf("the figures differ: mcpcost %d tokens, %d tools, sha %s; reference %d, %d, %s",
			a.TotalTokens, a.ToolCount, a.CanonicalSha256, b.TotalTokens, b.ToolCount, b.CanonicalSha256)
	}
	// mcpcost lists the tools heaviest first; compare them as sets.
	// tiktoken-go splits a whitespace run with line breaks in it, such as
	// "\n \n", differently from tiktoken (bench/tokenizer/README.md):
	// raw descriptions have them, canonical JSON does not.
	key := func(f figures, desc bool) []string {
		var k []string
		for _, t := range f.Tools {
			d := 0
			if desc {
				d = t.DescriptionTokens
			}
			k = append(k, fmt.Sprintf("%s %d %d %d", t.Name, t.Tokens, d, t.InputSchemaTokens))
		}
		slices.Sort(k)
		return k
	}
	if !slices.Equal(key(a, false), key(b, false)) {
		return errors.New("the per-tool figures differ between mcpcost and the reference")
	}
	ka, kb := key(a, true), key(b, true)
	differ := 0
	for i := range ka {
		if ka[i] != kb[i] {
			differ++
		}
	}
	fmt.Printf("both give %d tokens for %d tools, and the same tool and inputSchema counts; "+
		"description counts differ for %d tools (tiktoken-go's whitespace split)\n", a.TotalTokens, a.ToolCount, differ)
	return nil
}

func stats(v []float64) string {
	s := slices.Clone(v)
	slices.Sort(s)
	return fmt.Sprintf("%.3f / %.3f / %.3f", s[0], s[len(s)/2], s[len(s)-1])
}
