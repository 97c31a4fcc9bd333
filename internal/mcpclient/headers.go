package mcpclient

import (
	"fmt"
	"strings"
)

// ParseHeader parses one "Name: value" header, as given to --header. The
// error names the header, never its value.
func ParseHeader(s string) (name, value string, err error) {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok {
		return "", "", fmt.Errorf("header %q has no ':' (want Name: value)", clip(name, 40))
	}
	if name == "" {
		return "", "", fmt.Errorf("header without a name (want Name: value)")
	}
	for i := 0; i < len(name); i++ {
		if !isTokenChar(name[i]) {
			return "", "", fmt.Errorf("header name %q is not a valid HTTP field name", clip(name, 40))
		}
	}
	value = strings.TrimSpace(value)
	if strings.ContainsAny(value, "\r\n\x00") {
		return "", "", fmt.Errorf("the value of header %s contains a line break or NUL", name)
	}
	return name, value, nil
}

// ParseHeaderBlock parses headers given one "Name: value" per line (the
// content of an environment variable). Blank lines and lines starting with
// '#' are ignored; a later header of the same name replaces an earlier one.
// Errors name the line and the header, never a value.
func ParseHeaderBlock(text string) (map[string]string, error) {
	headers := map[string]string{}
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, err := ParseHeader(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		headers[name] = value
	}
	return headers, nil
}

// isTokenChar reports whether c may appear in an HTTP field name (RFC 9110 token).
func isTokenChar(c byte) bool {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
