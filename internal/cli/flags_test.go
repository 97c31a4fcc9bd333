package cli

import (
	"reflect"
	"strings"
	"testing"
)

func TestFlagsParse(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		pos, rest []string
		json      bool
		out       string
		cfg       []string
		err       string
	}{
		{name: "empty"},
		{name: "equals", args: []string{"--out=x.json", "a"}, pos: []string{"a"}, out: "x.json"},
		{name: "space", args: []string{"a", "--out", "x.json", "b"}, pos: []string{"a", "b"}, out: "x.json"},
		{name: "interspersed bool", args: []string{"a", "--json", "b"}, pos: []string{"a", "b"}, json: true},
		{name: "dashdash", args: []string{"--json", "--", "npx", "--json", "-y"}, json: true, rest: []string{"npx", "--json", "-y"}},
		{name: "dashdash after pos", args: []string{"a", "--", "b"}, pos: []string{"a"}, rest: []string{"b"}},
		{name: "repeat", args: []string{"--config=a", "--config", "b"}, cfg: []string{"a", "b"}},
		{name: "unknown", args: []string{"--bogus"}, err: "unknown flag --bogus for test"},
		{name: "unknown single dash", args: []string{"-bogus=1"}, err: "unknown flag -bogus for test"},
		{name: "unknown after a value", args: []string{"--json", "-bogus", "x"}, err: "unknown flag -bogus for test"},
		{name: "missing value", args: []string{"a", "--out"}, err: "flag --out needs a value"},
		{name: "bad number", args: []string{"--n=x"}, err: `flag --n: "x" is not a valid value`},
		{name: "stdin dash", args: []string{"-"}, pos: []string{"-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFlags("test")
			jsonFlag := f.Bool("json", "")
			outFlag := f.String("out", "", "")
			f.Int("n", 0, "")
			cfg := f.Strings("config", "")
			pos, rest, err := f.Parse(tt.args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(pos, tt.pos) || !reflect.DeepEqual(rest, tt.rest) {
				t.Errorf("pos, rest = %q, %q; want %q, %q", pos, rest, tt.pos, tt.rest)
			}
			if *jsonFlag != tt.json || *outFlag != tt.out || !reflect.DeepEqual([]string(*cfg), tt.cfg) && len(tt.cfg)+len(*cfg) > 0 {
				t.Errorf("json, out, config = %v, %q, %q", *jsonFlag, *outFlag, *cfg)
			}
		})
	}
}
