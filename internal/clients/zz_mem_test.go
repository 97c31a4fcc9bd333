package clients

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

func peak(f func()) (uint64, time.Duration) {
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	stop := make(chan struct{})
	res := make(chan uint64)
	go func() {
		var p uint64
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > p {
				p = m.HeapAlloc
			}
			select {
			case <-stop:
				res <- p
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	t0 := time.Now()
	f()
	d := time.Since(t0)
	close(stop)
	return (<-res - m0.HeapAlloc), d
}

func TestZZMem(t *testing.T) {
	for _, n := range []int{100000, 250000} {
		yflow := "mcpServers:\n  - name: s\n    command: x\n    args: [" + strings.Repeat("a,", n) + "a]\n"
		yblock := "mcpServers:\n  - name: s\n    command: x\n    args:\n" + strings.Repeat("      - a\n", n)
		tom := "[mcp_servers.s]\ncommand = \"x\"\nargs = [" + strings.Repeat("\"a\",", n) + "\"a\"]\n"
		js := `{"mcpServers":{"s":{"command":"x","args":[` + strings.Repeat(`"a",`, n) + `"a"]}}}`
		for name, doc := range map[string]string{"yflow": yflow, "yblock": yblock, "toml": tom, "json": js} {
			var cfg Config
			p, d := peak(func() {
				switch name {
				case "toml":
					cfg = parseCodex(&System{OS: "linux"}, candidate{client: Codex, path: "/x", format: FormatTOML, scope: "user"}, []byte(doc))
				case "json":
					cfg = parseGeneric(&System{OS: "linux"}, candidate{path: "/x", format: FormatJSON, scope: "explicit"}, []byte(doc))
				default:
					cfg = parseContinue(&System{OS: "linux"}, candidate{client: Continue, path: "/x", format: FormatYAML, scope: "user"}, []byte(doc))
				}
			})
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			fmt.Printf("%s n=%d bytes=%d peak=%dMB (%.0f B/value, %.0fx) %v servers=%d err=%q\n", name, n, len(doc), p>>20, float64(p)/float64(n), float64(p)/float64(len(doc)), d, len(cfg.Servers), cfg.Error)
			_ = cfg
		}
	}
}
