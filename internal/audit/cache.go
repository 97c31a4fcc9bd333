package audit

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpcost/mcpcost/internal/mcpclient"
	"github.com/mcpcost/mcpcost/internal/measure"
)

// DefaultMaxAge is how long a cached measurement is used without
// measuring again.
const DefaultMaxAge = 24 * time.Hour

// cacheVersion changes when Entry changes meaning.
const cacheVersion = 1

// A Cache keeps measurements of launch specs on disk, so that a repeated
// audit does not launch every server again. Entries are keyed by an
// HMAC-SHA256 of the launch spec (secrets included) under a per-install key
// kept beside them, so the file names reveal nothing; entries hold the
// tool definitions the server published and never a secret.
type Cache struct {
	Dir    string
	MaxAge time.Duration
	key    []byte
}

// Entry is one cached measurement: the capture a measurement is derived
// from, without secrets.
type Entry struct {
	Version         int       `json:"version"`
	MeasuredAt      time.Time `json:"measuredAt"`
	Status          string    `json:"status"`
	Detail          string    `json:"detail,omitempty"`
	ServerName      string    `json:"serverName,omitempty"`
	ServerVersion   string    `json:"serverVersion,omitempty"`
	ProtocolVersion string    `json:"protocolVersion,omitempty"`
	Transport       string    `json:"transport,omitempty"`
	Instructions    *string   `json:"instructions"`
	// Tools is the canonical JSON of the tools array of the first capture.
	Tools        json.RawMessage `json:"tools"`
	Extras       *measure.Extras `json:"extras,omitempty"`
	ChangedTools []string        `json:"changedTools,omitempty"`
	Warnings     []string        `json:"warnings,omitempty"`
}

// DefaultCacheDir is mcpcost's measurement cache under the user's cache
// folder.
func DefaultCacheDir(getenv func(string) string) (string, error) {
	if d := getenv("MCPCOST_CACHE_DIR"); d != "" {
		return d, nil
	}
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "mcpcost", "measurements"), nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cannot tell the cache folder: %w", err)
	}
	return filepath.Join(d, "mcpcost", "measurements"), nil
}

// OpenCache opens (creating) the cache in dir.
func OpenCache(dir string, maxAge time.Duration) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cache %s: %w", dir, err)
	}
	keyFile := filepath.Join(dir, "key")
	key, err := os.ReadFile(keyFile)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(key) != 32) {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		tmp := keyFile + ".tmp"
		if err := os.WriteFile(tmp, key, 0o600); err != nil {
			return nil, fmt.Errorf("cache %s: %w", dir, err)
		}
		if err := os.Rename(tmp, keyFile); err != nil {
			return nil, fmt.Errorf("cache %s: %w", dir, err)
		}
		// Another process may have won the race: use what is on disk.
		if k, err := os.ReadFile(keyFile); err == nil && len(k) == 32 {
			key = k
		}
	} else if err != nil {
		return nil, fmt.Errorf("cache %s: %w", dir, err)
	}
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	return &Cache{Dir: dir, MaxAge: maxAge, key: key}, nil
}

// Key is the key launch specs are hashed under.
func (c *Cache) Key() []byte { return c.key }

func (c *Cache) path(launchKey string) string {
	return filepath.Join(c.Dir, launchKey+".json")
}

// Get returns the entry for launchKey; fresh reports whether it is younger
// than MaxAge at now.
func (c *Cache) Get(launchKey string, now time.Time) (e *Entry, fresh bool) {
	b, err := os.ReadFile(c.path(launchKey))
	if err != nil {
		return nil, false
	}
	// An entry holds its tools as a tools/list result does, one level
	// below the response whose nesting mcpclient.MaxDepth bounds: a
	// capture deeper than any server's message mcpcost reads is not
	// used, and not parsed.
	if mcpclient.Depth(b)+1 > mcpclient.MaxDepth {
		return nil, false
	}
	e = new(Entry)
	if json.Unmarshal(b, e) != nil || e.Version != cacheVersion || len(e.Tools) == 0 {
		return nil, false
	}
	return e, now.Sub(e.MeasuredAt) < c.MaxAge
}

// Put stores an entry atomically.
func (c *Cache) Put(launchKey string, e *Entry) error {
	e.Version = cacheVersion
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.Dir, ".entry-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), c.path(launchKey))
}
