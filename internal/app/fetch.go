package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/mcpcost/mcpcost/internal/num"
	"github.com/mcpcost/mcpcost/internal/redact"
)

// FetchTimeout bounds the fetch of a published measurement.
const FetchTimeout = 15 * time.Second

// FetchMeasurement fetches a published measurement.json of at most max
// bytes: https, or http on a loopback address, within FetchTimeout, no
// redirect to another scheme or a non-loopback http.
func FetchMeasurement(ctx context.Context, raw string, max int64) ([]byte, error) {
	shown := redact.URL(raw)
	if err := fetchAllowed(raw); err != nil {
		return nil, optionErrorf("--remote %s: %v", shown, err)
	}
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	c := &http.Client{CheckRedirect: func(r *http.Request, via []*http.Request) error {
		// No Referer: it would carry the URL's query, a token included,
		// to wherever the redirect points.
		r.Header.Del("Referer")
		if len(via) >= 5 {
			return fmt.Errorf("too many redirects")
		}
		return fetchAllowed(r.URL.String())
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return nil, WithHint(fmt.Errorf("failed to fetch %s: %v", shown, err), fetchURLHint)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, WithHint(fmt.Errorf("failed to fetch %s: no answer within %s", shown, FetchTimeout),
				"check the URL and the network; or download the file and run 'mcpcost verify FILE'")
		}
		return nil, WithHint(fmt.Errorf("failed to fetch %s: %v", shown, redactErr(err)),
			"check the URL and that its server is up, then run verify again")
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		hint := fetchURLHint
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			hint = "the server could not answer now: run verify again later"
		}
		return nil, WithHint(fmt.Errorf("failed to fetch %s: HTTP %d", shown, resp.StatusCode), hint)
	}
	if resp.ContentLength > max {
		return nil, WithHint(fmt.Errorf("%s: larger than %s bytes: not read", shown, num.Int(int(max))), fetchSizeHint)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		return nil, WithHint(fmt.Errorf("failed to fetch %s: %v", shown, err), "the transfer broke off: run verify again")
	}
	if int64(len(b)) > max {
		return nil, WithHint(fmt.Errorf("%s: larger than %s bytes: not read", shown, num.Int(int(max))), fetchSizeHint)
	}
	return b, nil
}

// Hints of the fetch's errors.
const (
	fetchURLHint  = "check the URL: it names a published measurement.json, such as https://HOST/results/NAME/measurement.json"
	fetchSizeHint = "raise --max-bytes (such as --max-bytes 1G) if the file is meant to be that large"
)

func fetchAllowed(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("not an http(s) URL")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if host == "localhost" {
			return nil
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("plain http is only for loopback addresses: use https")
	}
	return fmt.Errorf("not an http(s) URL")
}

// redactErr is an error of the client without the URL it names (which
// may hold a secret: the caller names it redacted).
func redactErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
