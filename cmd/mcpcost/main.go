// Command mcpcost measures what MCP servers cost in an AI agent's context
// window: before anything is typed (tool definitions) and in every session
// that ran (tool results, requests, prices).
//
// Run "mcpcost help" for the manual.
package main

import (
	"os"

	"github.com/mcpcost/mcpcost/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
