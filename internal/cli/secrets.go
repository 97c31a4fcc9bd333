package cli

import (
	"strings"

	"github.com/mcpcost/mcpcost/internal/clients"
)

// argSecrets returns the parts of argv that the display rule redacts (the
// value of --api-key=VALUE, the argument after --token, a credential-looking
// argument), so that they can be scrubbed from anything the server printed.
func argSecrets(argv []string) []string {
	red := clients.RedactArgs(argv)
	var out []string
	for i, a := range argv {
		r := red[i]
		if r == a {
			continue
		}
		// The secret is what the redaction replaced: strip the common prefix
		// and suffix.
		p := 0
		for p < len(a) && p < len(r) && a[p] == r[p] {
			p++
		}
		s := 0
		for s < len(a)-p && s < len(r)-p && a[len(a)-1-s] == r[len(r)-1-s] {
			s++
		}
		if secret := a[p : len(a)-s]; len(secret) >= 4 {
			out = append(out, secret)
		}
	}
	return out
}

// scrubSecrets replaces every secret in text with clients.Redacted.
func scrubSecrets(text string, secrets []string) string {
	for _, s := range secrets {
		if s != "" {
			text = strings.ReplaceAll(text, s, clients.Redacted)
		}
	}
	return text
}
