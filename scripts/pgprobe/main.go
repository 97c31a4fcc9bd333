// Command pgprobe exits 0 when the PostgreSQL server at the URL given
// answers, 1 otherwise: scripts/test uses it to find a server for the
// shared store's tests.
package main

import (
	"fmt"
	"os"

	"github.com/mcpcost/mcpcost/internal/testpeers"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: pgprobe URL")
		os.Exit(2)
	}
	os.Setenv("MCPCOST_TEST_PG", os.Args[1])
	if _, err := testpeers.PostgresServer(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
