package cli

import (
	"errors"
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
		near      string
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
		{name: "bad number", args: []string{"--n=x"}, err: `flag --n: "x" is not a whole number`},
		{name: "number out of range", args: []string{"--n=99999999999999999999"}, err: `flag --n: "99999999999999999999" is out of range`},
		{name: "duration without a unit", args: []string{"--timeout", "5"}, err: `flag --timeout: "5" is not a duration: give it with its unit, such as 90s, 3m or 48h`},
		{name: "duration in days", args: []string{"--timeout=2d"}, err: `flag --timeout: "2d" is not a duration: give it with its unit, such as 90s, 3m or 48h`},
		{name: "bad float", args: []string{"--usd=x"}, err: `flag --usd: "x" is not a number`},
		{name: "a value's own words", args: []string{"--max-bytes=12Q"}, err: `flag --max-bytes: "12Q": want a positive size such as 1048576, 64K, 100M or 1G`},
		{name: "global flag misspelt", args: []string{"--colr=always"}, err: "unknown flag --colr for test", near: "--color"},
		{name: "global flag transposed", args: []string{"--quite"}, err: "unknown flag --quite for test", near: "--quiet"},
		{name: "stdin dash", args: []string{"-"}, pos: []string{"-"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFlags("test")
			jsonFlag := f.Bool("json", "")
			outFlag := f.String("out", "", "")
			f.Int("n", 0, "")
			f.fs.Duration("timeout", 0, "")
			f.fs.Float64("usd", 0, "")
			var size byteSize
			f.Var(&size, "max-bytes", "")
			cfg := f.Strings("config", "")
			pos, rest, err := f.Parse(tt.args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				var fe *flagError
				if near := ""; errors.As(err, &fe) {
					near = fe.near
					if near != tt.near {
						t.Errorf("near = %q, want %q", near, tt.near)
					}
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
