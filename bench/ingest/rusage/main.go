// Command rusage runs a command and prints its wall time and peak memory
// (maximum resident set size), for machines without /usr/bin/time.
//
//	rusage COMMAND ARGS...
package main

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rusage COMMAND ARGS...")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "rusage:", err)
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "\tElapsed (wall clock) time (seconds): %.3f\n", wall.Seconds())
	fmt.Fprintf(os.Stderr, "\tUser time (seconds): %.2f\n", cmd.ProcessState.UserTime().Seconds())
	fmt.Fprintf(os.Stderr, "\tSystem time (seconds): %.2f\n", cmd.ProcessState.SystemTime().Seconds())
	if kb, ok := maxRSSKB(cmd.ProcessState); ok {
		fmt.Fprintf(os.Stderr, "\tMaximum resident set size (kbytes): %d\n", kb)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
