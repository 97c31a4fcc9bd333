package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpcost/mcpcost/internal/testpeers"
)

func TestVerifyRemote(t *testing.T) {
	pub, err := os.ReadFile(filepath.Join(testpeers.Shared(t), "published", "memory", "measurement.json"))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/m.json":
			w.Write(pub)
		case "/away":
			http.Redirect(w, r, "http://example.com/m.json", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Environ: func() []string { return nil }, Now: time.Now}
		return Run(env, append([]string{"verify"}, args...)), stdout.String(), stderr.String()
	}
	if code, out, errs := run("--remote", srv.URL+"/m.json?token=s3cret"); code != ExitOK || !strings.HasPrefix(out, "OK memory-server (") || !strings.Contains(out, "): 2,378 tokens") || strings.Contains(out+errs, "s3cret") {
		t.Errorf("a published file: exit %d\n%s%s", code, out, errs)
	}
	size := len(pub)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--remote", srv.URL + "/missing"}, ExitError, "HTTP 404"},
		{[]string{"--remote", srv.URL + "/away"}, ExitError, "only for loopback"},
		{[]string{"--remote", "http://example.com/m.json"}, ExitError, "plain http is only for loopback"},
		{[]string{"--remote", "file:///etc/passwd"}, ExitError, "not an http(s) URL"},
		{[]string{"--remote", srv.URL + "/m.json", "--max-bytes", strconv.Itoa(size - 1)}, ExitError, "larger than"},
		{[]string{"--remote", srv.URL + "/m.json", "--max-bytes", strconv.Itoa(size)}, ExitOK, ""},
		{[]string{"--remote", srv.URL + "/m.json", "x.json"}, ExitError, "--remote takes the place of the files"},
	} {
		code, out, errs := run(c.args...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", c.args, code, c.code, c.want, out, errs)
		}
	}
}

// A redirect of --remote to another origin does not hand it the URL's
// query: Go's client sends the previous URL as the Referer, and it held
// the token.
func TestVerifyRemoteRedirectSendsNoReferer(t *testing.T) {
	pub, err := os.ReadFile(filepath.Join(testpeers.Shared(t), "published", "memory", "measurement.json"))
	if err != nil {
		t.Fatal(err)
	}
	referers := make(chan string, 1)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		referers <- r.Header.Get("Referer")
		w.Write(pub)
	}))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/m.json", http.StatusFound)
	}))
	defer srv.Close()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Environ: func() []string { return nil }, Now: time.Now}
	if code := Run(env, []string{"verify", "--remote", srv.URL + "/m.json?token=s3cretvalue"}); code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if ref := <-referers; ref != "" {
		t.Errorf("the redirect's target was sent Referer %q", ref)
	}
}
