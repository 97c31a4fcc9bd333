//go:build unix

// Command tokenizer benchmarks o200k_base counters side by side: mcpcost's
// internal/token, github.com/tiktoken-go/tokenizer and npm tiktoken (the
// WASM build of OpenAI's Rust core, run by tiktoken.js under node).
//
//	tokenizer gen -corpus DIR -out DIR [-mb 10]   write the inputs
//	tokenizer run -inputs DIR [-rounds 5] [-runs 3] -tiktoken PKG
//	tokenizer worker -impl NAME -file F [-runs N] one process, one result line
//
// run starts one worker process per implementation and input in every
// round, rotating the order from round to round, so that the machine's
// background load falls on all of them alike. It prints medians, MB/s and
// ratios, and fails if the token counts differ. run.sh does all of it.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/mcpcost/mcpcost/internal/token"
	"github.com/tiktoken-go/tokenizer"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: tokenizer gen|run|worker [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	case "worker":
		err = worker(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tokenizer:", err)
		os.Exit(1)
	}
}

// result is one worker process's measurement, also printed by tiktoken.js.
type result struct {
	Impl    string    `json:"impl"`
	Input   string    `json:"input"`
	Bytes   int       `json:"bytes"`
	Tokens  int       `json:"tokens"`
	LoadMS  float64   `json:"loadMs"`    // in process: until the first count of a short string is done
	LoadCPU float64   `json:"loadCpuMs"` // process CPU time at that point, start-up included
	FirstMS float64   `json:"firstMs"`   // the first count of the input
	WallMS  []float64 `json:"wallMs"`    // the timed runs
	CPUMS   []float64 `json:"cpuMs"`     // process CPU time of the timed runs
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func worker(args []string) error {
	fl := flag.NewFlagSet("worker", flag.ContinueOnError)
	impl := fl.String("impl", "mcpcost", "mcpcost or tiktoken-go")
	file := fl.String("file", "", "input file; none: only load and count a short string")
	runs := fl.Int("runs", 3, "timed runs after one warm-up")
	if err := fl.Parse(args); err != nil {
		return err
	}
	start := time.Now()
	var count func(string) int
	switch *impl {
	case "mcpcost":
		c := token.O200k()
		count = c.Count
	case "tiktoken-go":
		c, err := tokenizer.Get(tokenizer.O200kBase)
		if err != nil {
			return err
		}
		count = func(s string) int { n, _ := c.Count(s); return n }
	default:
		return fmt.Errorf("unknown implementation %q", *impl)
	}
	count("hello world")
	res := result{Impl: *impl, LoadMS: ms(time.Since(start)), LoadCPU: ms(cpuTime())}
	if *file != "" {
		b, err := os.ReadFile(*file)
		if err != nil {
			return err
		}
		text := string(b)
		res.Input, res.Bytes = filepath.Base(*file), len(b)
		t := time.Now()
		res.Tokens = count(text)
		res.FirstMS = ms(time.Since(t))
		count(text) // warm-up
		for range *runs {
			runtime.GC()
			w, c := time.Now(), cpuTime()
			if n := count(text); n != res.Tokens {
				return fmt.Errorf("%s: count changed from %d to %d", *impl, res.Tokens, n)
			}
			res.CPUMS = append(res.CPUMS, ms(cpuTime()-c))
			res.WallMS = append(res.WallMS, ms(time.Since(w)))
		}
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// gen writes corpus.json (every canonical.json of the corpus, concatenated
// in name order) and mixed.txt (about mb MB of code, prose, JSON and
// non-ASCII text, drawn deterministically).
func gen(args []string) error {
	fl := flag.NewFlagSet("gen", flag.ContinueOnError)
	corpus := fl.String("corpus", "", "the tools/list corpus (a folder of <server>/canonical.json)")
	out := fl.String("out", "", "output folder")
	mb := fl.Float64("mb", 10, "size of mixed.txt in MB")
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
	var whole bytes.Buffer
	var tools []json.RawMessage
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		whole.Write(b)
		var ts []json.RawMessage
		if err := json.Unmarshal(b, &ts); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		tools = append(tools, ts...)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	mixed, err := mixedText(tools, int(*mb*1e6))
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{"corpus.json": whole.Bytes(), "mixed.txt": mixed} {
		if err := os.WriteFile(filepath.Join(*out, name), b, 0o644); err != nil {
			return err
		}
	}
	for _, name := range []string{"corpus.json", "mixed.txt"} {
		b, _ := os.ReadFile(filepath.Join(*out, name))
		sum := sha256.Sum256(b)
		fmt.Printf("%-12s %11d bytes  sha256 %s\n", name, len(b), hex.EncodeToString(sum[:8]))
	}
	return nil
}

var nonASCII = []string{
	"日本語のテキストを数えます。トークンの数はモデルによって異なります。",
	"中文文本：上下文窗口的成本取决于工具定义的长度。",
	"한국어 문장도 포함되어 있습니다. 토큰 수를 세어 봅시다.",
	"Привет, мир! Это текст на русском языке для проверки.",
	"Γειά σου κόσμε· αυτό είναι ελληνικό κείμενο.",
	"Ça coûte combien ? Les élèves étaient déjà là, à l'école.",
	"Grüße aus München: Straße, Äpfel, Öl und Übermut.",
	"مرحبا بالعالم، هذا نص عربي للاختبار.",
	"नमस्ते दुनिया, यह परीक्षण के लिए हिंदी पाठ है।",
	"Deploy finished 🚀 tests ✅ lint ⚠️ reviewers 👩🏽‍💻👨🏿‍💻 family 👨‍👩‍👧‍👦 flags 🇯🇵🇫🇷",
	"Ünïcödé çômbíning: e\u0301 a\u0308 n\u0303 — “quotes” ‘single’ … €100 · ½ ¾ №5",
}

// mixedText draws segments with fixed probabilities: 38 % Go source from
// GOROOT/src, 30 % Markdown prose from the corpus's words, 20 % JSON (tools
// indented, or one per line), 9.5 % non-ASCII lines, 2.5 % numbers, base64
// and CRLF text. Trailing whitespace is trimmed from every line (as editors
// and gofmt do), so that the text avoids the one split on which
// tiktoken-go differs from tiktoken and all three counts can be compared.
func mixedText(tools []json.RawMessage, size int) ([]byte, error) {
	r := rand.New(rand.NewPCG(20261129, 1))
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOROOT: %w", err)
	}
	code, err := goSources(filepath.Join(strings.TrimSpace(string(goroot)), "src"))
	if err != nil {
		return nil, err
	}
	words := corpusWords(tools)
	var b bytes.Buffer
	for b.Len() < size {
		switch p := r.Float64(); {
		case p < 0.38:
			src := code[r.IntN(len(code))]
			lines := strings.Split(src, "\n")
			at := r.IntN(len(lines))
			end := min(len(lines), at+10+r.IntN(60))
			b.WriteString(strings.Join(lines[at:end], "\n"))
			b.WriteString("\n\n")
		case p < 0.68:
			b.WriteString(prose(r, words))
		case p < 0.88:
			t := tools[r.IntN(len(tools))]
			if r.IntN(2) == 0 {
				var ind bytes.Buffer
				json.Indent(&ind, t, "", "  ")
				b.Write(ind.Bytes())
			} else {
				b.Write(t)
			}
			b.WriteString("\n")
		case p < 0.975:
			for range 1 + r.IntN(4) {
				b.WriteString(nonASCII[r.IntN(len(nonASCII))])
				b.WriteString("\n")
			}
		case p < 0.985:
			for range 5 + r.IntN(20) {
				fmt.Fprintf(&b, "%d\t%d.%02d\t%x\t%s\n", r.IntN(1e6), r.IntN(1000), r.IntN(100), r.Uint32(), strings.Repeat("9", 1+r.IntN(12)))
			}
		case p < 0.99:
			const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
			for range 500 + r.IntN(4000) {
				b.WriteByte(b64[r.IntN(len(b64))])
			}
			b.WriteString("==\n")
		default:
			for range 3 + r.IntN(10) {
				b.WriteString(sentence(r, words))
				b.WriteString("\r\n")
			}
		}
	}
	return trimLines(b.Bytes()), nil
}

func trimLines(b []byte) []byte {
	lines := strings.SplitAfter(string(b), "\n")
	var out strings.Builder
	for _, l := range lines {
		body, nl := l, ""
		if strings.HasSuffix(body, "\r\n") {
			body, nl = body[:len(body)-2], "\r\n"
		} else if strings.HasSuffix(body, "\n") {
			body, nl = body[:len(body)-1], "\n"
		}
		out.WriteString(strings.TrimRightFunc(body, isSpaceNotNewline))
		out.WriteString(nl)
	}
	return []byte(out.String())
}

func isSpaceNotNewline(r rune) bool {
	return r != '\n' && r != '\r' && strings.ContainsRune(" \t\v\f\u0085\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000", r)
}

func goSources(root string) ([]string, error) {
	var files []string
	for _, dir := range []string{"bufio", "bytes", "encoding/json", "net/http", "sort", "strings", "text/template", "go/parser"} {
		matches, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil {
			return nil, err
		}
		files = append(files, matches...)
	}
	sort.Strings(files)
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, string(b))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no Go sources under %s", root)
	}
	return out, nil
}

func corpusWords(tools []json.RawMessage) []string {
	seen := map[string]bool{}
	var words []string
	for _, t := range tools {
		var v struct {
			Description string `json:"description"`
		}
		json.Unmarshal(t, &v)
		for _, w := range strings.Fields(v.Description) {
			if !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
	}
	slices.Sort(words)
	return words
}

func sentence(r *rand.Rand, words []string) string {
	n := 5 + r.IntN(20)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[r.IntN(len(words))]
	}
	return strings.Join(ws, " ") + "."
}

func prose(r *rand.Rand, words []string) string {
	var b strings.Builder
	if r.IntN(3) == 0 {
		fmt.Fprintf(&b, "## %s\n\n", words[r.IntN(len(words))])
	}
	for range 1 + r.IntN(4) {
		if r.IntN(4) == 0 {
			for range 2 + r.IntN(4) {
				fmt.Fprintf(&b, "- %s\n", sentence(r, words))
			}
		} else {
			for range 2 + r.IntN(5) {
				b.WriteString(sentence(r, words))
				b.WriteByte(' ')
			}
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// run measures every implementation on every input, interleaved.
func run(args []string) error {
	fl := flag.NewFlagSet("run", flag.ContinueOnError)
	inputs := fl.String("inputs", "", "folder with corpus.json and mixed.txt (from gen)")
	rounds := fl.Int("rounds", 5, "rounds; each starts one process per implementation and input")
	runs := fl.Int("runs", 3, "timed runs per process")
	node := fl.String("node", "node", "node executable")
	tiktoken := fl.String("tiktoken", "", "folder of the npm tiktoken package")
	script := fl.String("script", "", "path of tiktoken.js")
	if err := fl.Parse(args); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	type impl struct {
		name string
		cmd  func(file string, runs int) []string
	}
	impls := []impl{
		{"mcpcost", func(f string, n int) []string {
			return []string{self, "worker", "-impl", "mcpcost", "-file", f, "-runs", fmt.Sprint(n)}
		}},
		{"tiktoken-go", func(f string, n int) []string {
			return []string{self, "worker", "-impl", "tiktoken-go", "-file", f, "-runs", fmt.Sprint(n)}
		}},
	}
	if *tiktoken != "" {
		impls = append(impls, impl{"tiktoken (npm WASM)", func(f string, n int) []string {
			return []string{*node, *script, *tiktoken, f, fmt.Sprint(n)}
		}})
	}
	files := []string{filepath.Join(*inputs, "corpus.json"), filepath.Join(*inputs, "mixed.txt")}
	type key struct{ impl, input string }
	all := map[key][]result{}
	cold := map[string][]float64{}
	for round := range *rounds {
		fmt.Fprintf(os.Stderr, "round %d/%d\n", round+1, *rounds)
		for k := range impls {
			im := impls[(k+round)%len(impls)]
			// a process that only loads and counts a short string: the
			// cold start a CLI pays
			argv := im.cmd("", 0)
			t := time.Now()
			if _, err := runWorker(argv); err != nil {
				return err
			}
			cold[im.name] = append(cold[im.name], ms(time.Since(t)))
			for _, f := range files {
				res, err := runWorker(im.cmd(f, *runs))
				if err != nil {
					return err
				}
				all[key{im.name, filepath.Base(f)}] = append(all[key{im.name, filepath.Base(f)}], res)
			}
		}
	}
	fmt.Printf("o200k_base, single thread; medians over %d processes x %d timed runs, interleaved\n\n", *rounds, *runs)
	tw := tabwriter.NewWriter(os.Stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "input\timpl\ttokens\tMB/s wall (min-max)\tMB/s CPU\tmcpcost faster, wall\tCPU\tfirst run ms\t")
	mismatch := false
	for _, f := range files {
		in := filepath.Base(f)
		base, baseCPU := 0.0, 0.0
		var want int
		for i, im := range impls {
			rs := all[key{im.name, in}]
			var wall, cpu []float64
			for _, r := range rs {
				wall = append(wall, r.WallMS...)
				cpu = append(cpu, r.CPUMS...)
				if r.Tokens != rs[0].Tokens {
					mismatch = true
				}
			}
			if i == 0 {
				want = rs[0].Tokens
			} else if rs[0].Tokens != want {
				mismatch = true
				fmt.Fprintf(os.Stderr, "MISMATCH on %s: %s counts %d, mcpcost %d\n", in, im.name, rs[0].Tokens, want)
			}
			mb := float64(rs[0].Bytes) / 1e6
			w, c := median(wall), median(cpu)
			if i == 0 {
				base, baseCPU = w, c
			}
			var firsts []float64
			for _, r := range rs {
				firsts = append(firsts, r.FirstMS)
			}
			ratio, ratioCPU := "-", "-"
			if i > 0 {
				ratio, ratioCPU = fmt.Sprintf("%.1fx", w/base), fmt.Sprintf("%.1fx", c/baseCPU)
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f (%.1f-%.1f)\t%.1f\t%s\t%s\t%.0f\t\n", in, im.name, rs[0].Tokens,
				mb/w*1e3, mb/slices.Max(wall)*1e3, mb/slices.Min(wall)*1e3, mb/c*1e3, ratio, ratioCPU, median(firsts))
		}
	}
	tw.Flush()
	fmt.Println()
	tw = tabwriter.NewWriter(os.Stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "impl\tprocess start to first count, wall ms (min-max)\tin-process load ms\tprocess CPU ms at first count\t")
	for _, im := range impls {
		var loads, cpus []float64
		for _, r := range all[key{im.name, filepath.Base(files[0])}] {
			loads = append(loads, r.LoadMS)
			cpus = append(cpus, r.LoadCPU)
		}
		c := cold[im.name]
		fmt.Fprintf(tw, "%s\t%.0f (%.0f-%.0f)\t%.1f\t%.0f\t\n", im.name, median(c), slices.Min(c), slices.Max(c), median(loads), median(cpus))
	}
	tw.Flush()
	if mismatch {
		return errors.New("token counts differ")
	}
	fmt.Println("\ntoken counts: all implementations agree on every input")
	return nil
}

func runWorker(argv []string) (result, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return result{}, fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, stderr.String())
	}
	var res result
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if err := json.Unmarshal(sc.Bytes(), &res); err == nil {
			return res, nil
		}
	}
	return result{}, fmt.Errorf("%s: no result line in %q", strings.Join(argv, " "), out)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
