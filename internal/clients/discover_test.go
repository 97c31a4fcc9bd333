package clients

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiscover reads every home tree under testdata/discover and compares
// what discovery finds with the golden JSON beside it.
func TestDiscover(t *testing.T) {
	for _, file := range txtarFiles(t, "testdata/discover") {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			sys, names := loadHome(t, file)
			configs, looked := Discover(sys, names)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			// What would be launched, values included: test data only.
			type launch struct {
				Command string            `json:"command,omitempty"`
				Args    []string          `json:"args,omitempty"`
				Env     map[string]string `json:"env,omitempty"`
				EnvFile string            `json:"envFile,omitempty"`
				Cwd     string            `json:"cwd,omitempty"`
				URL     string            `json:"url,omitempty"`
				Headers map[string]string `json:"headers,omitempty"`
			}
			// What would be launched on --trust-project: the servers of
			// the project's files too, expanded.
			trusting := sys
			trusting.TrustProject = true
			trusted, _ := Discover(trusting, names)
			var launches []map[string]launch
			for _, c := range trusted {
				for _, s := range c.Active() {
					launches = append(launches, map[string]launch{c.Client + " " + c.Scope + " " + s.Name: {
						s.Command, s.Args, s.Env, s.EnvFile, s.Cwd, s.URL, s.Headers}})
				}
			}
			if err := enc.Encode(map[string]any{"configs": configs, "looked": looked, "launches": launches}); err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(file, ".txtar")+".json", buf.Bytes())
		})
	}
}
