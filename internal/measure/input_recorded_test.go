package measure

import "testing"

// TestRecordedFields: a measurement.json's fields beside its capture are
// read, one of the wrong type left out alone.
func TestRecordedFields(t *testing.T) {
	doc := `{"status":"dynamic","serverName":"n","serverVersion":5,"launchCommand":"node s.js","timeoutMs":"x",` +
		`"serverInstructions":null,"measuredAt":"2026-01-02T03:04:05.000Z","extras":{"sessionStartTokens":7},"rawToolsCapture":[{"name":"a"}]}`
	c, err := ParseInput("m.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	r := c.Recorded
	if r == nil || r.Status != "dynamic" || r.LaunchCommand != "node s.js" || r.MeasuredAt != "2026-01-02T03:04:05.000Z" ||
		r.Extras == nil || r.Extras.SessionStartTokens != 7 || string(r.ServerInstructions) != "null" {
		t.Fatalf("recorded %+v", r)
	}
	if r.ServerVersion != "" || r.TimeoutMs != 0 || len(r.Tools) != 0 {
		t.Errorf("fields of the wrong type, or the tools, read: %+v", r)
	}
	if c, _ := ParseInput("t.json", []byte(`{"tools":[]}`)); c.Recorded != nil {
		t.Error("a tools/list result has a recorded measurement")
	}
}
