//go:build !unix

package main

import "os"

func maxRSSKB(*os.ProcessState) (int64, bool) { return 0, false }
