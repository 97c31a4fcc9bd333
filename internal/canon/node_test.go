package canon

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcost/mcpcost/internal/canon/canontest"
	"github.com/mcpcost/mcpcost/internal/testpeers"
)

// nodeScript reads length-prefixed inputs on stdin and answers each with
// a status byte (0 ok, 1 SyntaxError, 2 another error such as a stack
// overflow) and a length-prefixed UTF-8 payload: the canonical form, or the
// error message. The input is decoded as Node decodes a Buffer.
const nodeScript = `
let buf = Buffer.alloc(0);
function reply(status, text) {
  const body = Buffer.from(text, 'utf8');
  const head = Buffer.alloc(5);
  head[0] = status;
  head.writeUInt32BE(body.length, 1);
  process.stdout.write(Buffer.concat([head, body]));
}
process.stdin.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  while (buf.length >= 4) {
    const n = buf.readUInt32BE(0);
    if (buf.length < 4 + n) break;
    const input = buf.subarray(4, 4 + n).toString('utf8');
    buf = buf.subarray(4 + n);
    try {
      reply(0, JSON.stringify(JSON.parse(input)));
    } catch (e) {
      reply(e instanceof SyntaxError ? 1 : 2, String(e && e.message));
    }
  }
});
process.stdin.on('end', () => process.exit(0));
`

// nodeResult is Node's answer for one input.
type nodeResult struct {
	status byte // 0 ok, 1 SyntaxError, 2 other error
	out    []byte
}

// nodeCanon is a long-lived node child that canonicalizes inputs.
type nodeCanon struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

var (
	nodeOnce sync.Once
	nodeProc *nodeCanon
	nodeErr  error
)

// startNode returns the shared node child, starting it on first use. It
// skips the test when node is absent (fails under MCPCOST_REQUIRE_PEERS).
func startNode(tb testing.TB) *nodeCanon {
	tb.Helper()
	bin := testpeers.Node(tb)
	nodeOnce.Do(func() {
		cmd := exec.Command(bin, "-e", nodeScript)
		in, err := cmd.StdinPipe()
		if err != nil {
			nodeErr = err
			return
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			nodeErr = err
			return
		}
		if err := cmd.Start(); err != nil {
			nodeErr = err
			return
		}
		nodeProc = &nodeCanon{cmd: cmd, in: in, out: bufio.NewReader(out)}
	})
	if nodeErr != nil {
		tb.Fatalf("starting node: %v", nodeErr)
	}
	return nodeProc
}

func (n *nodeCanon) canon(tb testing.TB, input []byte) nodeResult {
	tb.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	var head [5]byte
	binary.BigEndian.PutUint32(head[:4], uint32(len(input)))
	if _, err := n.in.Write(head[:4]); err != nil {
		tb.Fatalf("writing to node: %v", err)
	}
	if _, err := n.in.Write(input); err != nil {
		tb.Fatalf("writing to node: %v", err)
	}
	if _, err := io.ReadFull(n.out, head[:]); err != nil {
		tb.Fatalf("reading from node: %v", err)
	}
	body := make([]byte, binary.BigEndian.Uint32(head[1:]))
	if _, err := io.ReadFull(n.out, body); err != nil {
		tb.Fatalf("reading from node: %v", err)
	}
	return nodeResult{status: head[0], out: body}
}

// canonAll gives Node all of inputs at once, writing while it reads the
// answers, so that a batch costs one round trip.
func (n *nodeCanon) canonAll(tb testing.TB, inputs [][]byte) []nodeResult {
	tb.Helper()
	n.mu.Lock()
	defer n.mu.Unlock()
	werr := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(n.in, 1<<16)
		for _, input := range inputs {
			var head [4]byte
			binary.BigEndian.PutUint32(head[:], uint32(len(input)))
			w.Write(head[:])
			w.Write(input)
		}
		werr <- w.Flush()
	}()
	out := make([]nodeResult, len(inputs))
	var head [5]byte
	for i := range out {
		if _, err := io.ReadFull(n.out, head[:]); err != nil {
			tb.Fatalf("reading from node: %v", err)
		}
		body := make([]byte, binary.BigEndian.Uint32(head[1:]))
		if _, err := io.ReadFull(n.out, body); err != nil {
			tb.Fatalf("reading from node: %v", err)
		}
		out[i] = nodeResult{status: head[0], out: body}
	}
	if err := <-werr; err != nil {
		tb.Fatalf("writing to node: %v", err)
	}
	return out
}

// checkNode compares Transform with Node on input.
func checkNode(t *testing.T, n *nodeCanon, input []byte) {
	t.Helper()
	checkNodeResult(t, input, n.canon(t, input))
}

// checkNodeResult compares Transform and Marshal(Parse) of input with
// Node's answer want.
func checkNodeResult(t *testing.T, input []byte, want nodeResult) {
	t.Helper()
	got, err := Transform(input)
	switch want.status {
	case 0:
		if err != nil {
			t.Fatalf("Transform(%q): %v; node gives %q", input, err, want.out)
		}
		if !bytes.Equal(got, want.out) {
			t.Fatalf("Transform(%q)\n got %q\nnode %q", input, got, want.out)
		}
		v, err := Parse(input)
		if err != nil {
			t.Fatalf("Parse(%q): %v", input, err)
		}
		if m := Marshal(v); !bytes.Equal(m, want.out) {
			t.Fatalf("Marshal(Parse(%q))\n got %q\nnode %q", input, m, want.out)
		}
	case 1:
		if err == nil {
			t.Fatalf("Transform(%q) = %q; node rejects it: %s", input, got, want.out)
		}
		if _, ok := err.(*SyntaxError); !ok {
			t.Fatalf("Transform(%q): error %T, want *SyntaxError", input, err)
		}
	default:
		// Node failed for another reason (a stack overflow on deep
		// nesting); only the parse must still be sane.
		if err == nil && len(got) == 0 {
			t.Fatalf("Transform(%q): empty output without error", input)
		}
	}
}

// trickySeeds are inputs worth comparing with Node on every test run.
var trickySeeds = []string{
	`{"b":1,"a":2,"b":3,"10":4,"2":5,"-1":6,"01":7}`,
	`{"4294967294":1,"4294967295":2,"0":3,"a":4,"1":5}`,
	`{"a":1,"a":{"x":1},"a":[]}`,
	`[5e-324,1.7976931348623157e308,123e-20,0.1,100,1e21,1e-6,1e-7,-0,0.30000000000000004,1e400,-1e400,1e-400]`,
	`[9007199254740993,9007199254740991,-9007199254740991,1152921504606846976,0.25,1.5e300,2e-7,123456789012345680000]`,
	`[1E2,1e+2,1e-2,-1.0,0.0,-0.0,1.000000000000000000001,4.35,0.000001234,1.2345e-7,999999999999999999999,1e20]`,
	`"\u0000\u001f\b\f\n\r\t\"\\\/<>&\u007f\u2028\u2029\u00e9\uFFFF"`,
	`"\ud800" `,
	`"\udc00\ud800\ud800\udc00\uDBFF\uDFFF\ud83d"`,
	`["\ud83d\ude00", "\ud83d x", "\ude00\ud83d"]`,
	"\"\xe2\x82A\xf0\x90\"",
	"\"\xc0\xaf\xe0\x80\xaf\xed\xa0\x80\xed\xbf\xbf\xf4\x90\x80\x80\xf5\xff\xfe\x80\xbf\"",
	"\"\xf0\x9f\x98\"",
	"\"\xf0\x9f\"",
	"\"\xe0\xa0\"",
	"\"\xc2\"",
	"\xef\xbb\xbf1",
	"{\"\xff\":1}",
	"\xff",
	` [ 1 , 2 ] `,
	"\t\r\n1\n",
	"\f1",
	"\u00a01",
	`01`, `-01`, `-`, `1.`, `.5`, `1e`, `1e+`, `+1`, `0x10`, `NaN`, `Infinity`, `-Infinity`,
	`[1,]`, `{"a":1,}`, `{'a':1}`, `{a:1}`, `/*c*/1`, `// c` + "\n1", `[1 2]`, `{"a" 1}`, `{"a":1 "b":2}`,
	`"a` + "\n" + `b"`, `"\x"`, `"\u12"`, `"\u12G4"`, `"\U0041"`, `"\'"`,
	``, ` `, `nul`, `truex`, `[`, `{`, `{"a"`, `{"a":`, `"`, `[]]`, `{}}`, `1 2`,
	`{"__proto__":1}`, `{"__proto__":{"a":1},"b":2}`, `{"constructor":1,"toString":2}`,
	`{"":1,"":2}`, `{"\u0030":1,"1":2,"0":3}`, `{"\ud800":1,"\ufffd":2}`,
	`[[[[[]]]]]`, `{"a":{"b":{"c":[{"d":null}]}}}`, `true`, `false`, `null`, `"x"`,
	// Objects that Transform writes through a tree, inside ones it streams.
	`{"x":{"a":1,"a":2},"y":[{"1":1,"b":[{"0":0}]}],"z":{"q":{"r":1,"r":{"2":2,"1":1}}}}`,
	`{"a":{"b":1,"b":2,}}`, `{"a":{"1":1,"c" 2}}`, `[{"k":1,"k":2},{"k":3,"k":[1,]}]`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"a":19}`,
	`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18,"7":19}`,
	// Decimal to double conversion beyond 800 significant digits, where
	// the halfway case is decided by the last digit.
	"9007199254740993." + strings.Repeat("0", 900) + "1",
	"9007199254740993." + strings.Repeat("0", 900),
	"1" + strings.Repeat("0", 308) + "." + strings.Repeat("9", 50),
	`1e99999999999999999999`, `-1e-99999999999999999999`, `0e99999999999999999999`, `0.0e-5`,
	`2.4703282292062327e-324`, `2.4703282292062328e-324`, `1.7976931348623158e308`, `1.7976931348623157e309`,
}

func TestNodeDifferential(t *testing.T) {
	n := startNode(t)
	for _, s := range trickySeeds {
		checkNode(t, n, []byte(s))
	}
}

func FuzzNode(f *testing.F) {
	for _, s := range trickySeeds {
		f.Add([]byte(s))
	}
	for _, s := range corpusSeeds(f) {
		f.Add(s)
	}
	for _, s := range canontest.Seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkNode(t, startNode(t), data)
	})
}
