package transcript

import (
	"reflect"
	"strings"
	"testing"
)

// The direct reading of a usage object gives what encoding/json gives:
// the same values and the same errors.
func FuzzDecodeUsage(f *testing.F) {
	for _, s := range []string{
		`null`, `{}`, `[]`, `1`, `"x"`, `{"input_tokens":1}`,
		`{"input_tokens":3,"cache_creation_input_tokens":10,"cache_read_input_tokens":20,"cache_creation":{"ephemeral_5m_input_tokens":4,"ephemeral_1h_input_tokens":6},"output_tokens":5,"service_tier":"standard","server_tool_use":{"web_search_requests":1,"web_fetch_requests":0},"speed":"fast"}`,
		`{"input_tokens":1.5}`, `{"input_tokens":-7}`, `{"input_tokens":99999999999999999999}`, `{"input_tokens":"1"}`,
		`{"Input_Tokens":2}`, `{"input_tokens":1,"input_tokens":2}`, `{"cache_creation":null}`, `{"cache_creation":{"ephemeral_5m_input_tokens":1},"cache_creation":{"ephemeral_1h_input_tokens":2}}`,
		`{"cache_creation":[]}`, `{"server_tool_use":{"WEB_SEARCH_REQUESTS":3}}`, `{"speed":null}`, `{"speed":1}`, `{"speed":"f\u0061st"}`,
		`{"input_tokens":1,}`, `{"input_tokens":null}`, `{"x":{"y":[1,2,{"z":null}]},"output_tokens":0}`, `{"\u0069nput_tokens":9}`,
		// What the direct reading validates itself: numbers, strings and
		// keys it does not read, and the depth of what it does not read.
		`{"input_tokens":01}`, `{"input_tokens":-01}`, `{"input_tokens":-0}`, `{"input_tokens":0}`, `{"input_tokens":-}`, `{"x":01,"input_tokens":1}`,
		`{"x":1.5e3,"input_tokens":1}`, `{"x":1.e3}`, `{"x":-}`, `{"service_tier":"st\u0061ndard"}`, `{"service_tier":"a\qb"}`, "{\"service_tier\":\"a\tb\"}",
		"{\"service_tier\":\"\xff\"}", "{\"speed\":\"a\x01\"}", "{\"speed\":\"\xff\"}", "{\"in\x01\":1}", `{"in\u0001":1}`, "{\"input_tokens\":1,\"\x1f\":2}",
		`{"cache_creation":{"ephemeral_5m_input_tokens":01}}`, `{"cache_creation":{"x":"\z"}}`, `{"cache_creation":{"x":[1,]}}`, `{"x":[1,]}`, `{"x":{"a":}}`,
		`{"x":[` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `]}`, `{"x":[` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `]}`,
		`{"cache_creation":{"x":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `}}`, `{"cache_creation":{"x":` + strings.Repeat("[", 9997) + strings.Repeat("]", 9997) + `}}`,
	} {
		f.Add([]byte(s))
	}
	addBoundaryUsage(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		var want, got *claudeUsage
		werr := decodeField("message.usage", b, &want)
		gerr := decodeUsage(b, &got, nil)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("%s: error %v, want %v", b, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %+v, want %+v", b, got, want)
		}
	})
}

func TestDecodeUsageTwice(t *testing.T) {
	m, err := decodeMessage([]byte(`{"usage":{"input_tokens":1},"usage":{"output_tokens":2}}`), nil, &lastValues{}, nil, nil)
	if err != nil || m.Usage == nil || m.Usage.InputTokens != 1 || m.Usage.OutputTokens != 2 {
		t.Fatalf("two usage members: %+v, %v; want them merged", m.Usage, err)
	}
}
