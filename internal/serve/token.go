package serve

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// TokenFile returns the bearer token kept in path, creating it when there
// is none: 32 random bytes in hex, in a file of mode 0600 in a folder of
// mode 0700. A file that is not a regular file, or that others may read,
// is replaced, so that a token others have seen is never used.
func TokenFile(path string) (token string, created bool, err error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o077 == 0 {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", false, fmt.Errorf("reading the token in %s: %w", path, err)
		}
		if t := strings.TrimSpace(string(b)); len(t) >= 32 {
			return t, false, nil
		}
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, fmt.Errorf("creating %s: %w", dir, err)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", false, err
	}
	token = hex.EncodeToString(raw)
	f, err := os.CreateTemp(dir, ".serve-token-*")
	if err != nil {
		return "", false, fmt.Errorf("writing the token: %w", err)
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return "", false, fmt.Errorf("writing the token: %w", err)
	}
	if _, err := f.WriteString(token + "\n"); err != nil {
		f.Close()
		return "", false, fmt.Errorf("writing the token: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", false, fmt.Errorf("writing the token: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return "", false, fmt.Errorf("writing the token to %s: %w", path, err)
	}
	return token, true, nil
}

// MinTokenLength is the shortest bearer token [CheckToken] takes.
const MinTokenLength = 16

// CheckToken refuses a bearer token chosen by the operator that is shorter
// than MinTokenLength, or that holds anything but printable ASCII without
// spaces (what an Authorization header carries whole, with nothing a
// client or proxy could trim or fold). Its errors never quote the token.
func CheckToken(token string) error {
	if len(token) < MinTokenLength {
		return fmt.Errorf("the token is shorter than %d characters", MinTokenLength)
	}
	for i := 0; i < len(token); i++ {
		if c := token[i]; c <= ' ' || c > '~' {
			what := "a character outside ASCII"
			switch {
			case c == ' ':
				what = "a space"
			case c < ' ' || c == 0x7f:
				what = "a control character"
			}
			where := fmt.Sprintf("at byte %d", i+1)
			switch i {
			case 0:
				where = "at its start"
			case len(token) - 1:
				where = "at its end"
			}
			return fmt.Errorf("the token holds %s (%s); a token is printable ASCII without spaces", what, where)
		}
	}
	return nil
}
