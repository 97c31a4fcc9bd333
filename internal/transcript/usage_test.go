package transcript

import (
	"reflect"
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
	} {
		f.Add([]byte(s))
	}
	addBoundaryUsage(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		var want, got *claudeUsage
		werr := decodeField("message.usage", b, &want)
		gerr := decodeUsage(b, &got)
		if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
			t.Fatalf("%s: error %v, want %v", b, gerr, werr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %+v, want %+v", b, got, want)
		}
	})
}

func TestDecodeUsageTwice(t *testing.T) {
	m, err := decodeMessage([]byte(`{"usage":{"input_tokens":1},"usage":{"output_tokens":2}}`), nil)
	if err != nil || m.Usage == nil || m.Usage.InputTokens != 1 || m.Usage.OutputTokens != 2 {
		t.Fatalf("two usage members: %+v, %v; want them merged", m.Usage, err)
	}
}
