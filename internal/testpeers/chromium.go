package testpeers

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// ChromiumPath is where scripts/test installs Chromium.
const ChromiumPath = "/usr/bin/chromium"

// Chromium runs headless Chromium on pages, each run with a fresh profile.
type Chromium struct {
	tb  testing.TB
	bin string
}

// NewChromium returns headless Chromium, or skips (fails under
// scripts/test) when it is not installed.
func NewChromium(tb testing.TB) *Chromium {
	tb.Helper()
	if _, err := os.Stat(ChromiumPath); err != nil {
		missing(tb, "chromium is not installed at %s", ChromiumPath)
	}
	return &Chromium{tb: tb, bin: ChromiumPath}
}

// profile makes a Chromium profile folder and removes it when the test
// ends. It is kept out of the test's own temporary folder: Chromium's
// helper processes can go on writing to it for a moment after the browser
// is gone, which failed that folder's removal ("directory not empty").
// Registered before the browser's own stop, this removal runs after it,
// and tries again until the helpers are gone.
func (c *Chromium) profile() string {
	c.tb.Helper()
	dir, err := os.MkdirTemp("", "mcpcost-chromium-")
	if err != nil {
		c.tb.Fatal(err)
	}
	c.tb.Cleanup(func() {
		var err error
		for range 100 {
			if err = os.RemoveAll(dir); err == nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		c.tb.Logf("chromium's profile %s is left: %v", dir, err)
	})
	return dir
}

// Run runs Chromium with args after the flags that keep it headless, quiet
// and off the network on its own account, and returns its standard output.
func (c *Chromium) Run(args ...string) []byte {
	c.tb.Helper()
	profile := c.profile()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir=" + profile}
	cmd := exec.CommandContext(ctx, c.bin, append(base, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		c.tb.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.Bytes()
}

// DOM loads file in a window of the given size and returns the DOM after
// its scripts ran.
func (c *Chromium) DOM(file string, width, height int) string {
	c.tb.Helper()
	return string(c.Run(windowSize(width, height), "--dump-dom", "file://"+file))
}

// Screenshot writes a PNG of file's first screen at the given size.
func (c *Chromium) Screenshot(file, png string, width, height int) {
	c.tb.Helper()
	c.Run(windowSize(width, height), "--screenshot="+png, "file://"+file)
	if _, err := os.Stat(png); err != nil {
		c.tb.Fatalf("chromium wrote no screenshot: %v", err)
	}
}

func windowSize(w, h int) string { return "--window-size=" + strconv.Itoa(w) + "," + strconv.Itoa(h) }

// WriteFile writes data to dir/name and returns its path.
func WriteFile(tb testing.TB, dir, name string, data []byte) string {
	tb.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}
