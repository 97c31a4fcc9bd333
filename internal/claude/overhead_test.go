package claude

import "testing"

func TestOverheadFor(t *testing.T) {
	tests := []struct {
		model     string
		auto, any int
		ok        bool
	}{
		{"claude-sonnet-5", 354, 474, true},
		{DefaultModel, 354, 474, true},
		{"claude-opus-5", 286, 406, true},
		{"claude-opus-4-8", 290, 410, true},
		{"claude-opus-4-7", 675, 804, true},
		{"claude-sonnet-4-6", 497, 589, true},
		{"claude-sonnet-4-5-20250929", 496, 588, true},
		{"claude-haiku-4-5-20251001", 496, 588, true},
		{"claude-opus-4-1-20250805", 313, 315, true},
		{"claude-sonnet-4-20250514", 313, 315, true},
		{"claude-3-5-haiku-latest", 264, 355, true},
		{" Claude-Sonnet-5 ", 354, 474, true},
		// A prefix is not a match: Opus 4 is not Opus 4.5.
		{"claude-opus-4-9", 0, 0, false},
		{"claude-3-opus-20240229", 0, 0, false},
		{"gpt-5", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		o, ok := OverheadFor(tt.model)
		if ok != tt.ok || o.Auto != tt.auto || o.Any != tt.any {
			t.Errorf("OverheadFor(%q) = %d/%d %v, want %d/%d %v", tt.model, o.Auto, o.Any, ok, tt.auto, tt.any, tt.ok)
		}
	}
}

func TestOverheadsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range Overheads() {
		if o.Model == "" || len(o.IDs) == 0 || o.Auto <= 0 || o.Any < o.Auto {
			t.Errorf("bad row %+v", o)
		}
		for _, id := range o.IDs {
			if seen[id] {
				t.Errorf("model id %s in two rows", id)
			}
			seen[id] = true
		}
	}
	if len(Overheads()) != 8 {
		t.Errorf("%d rows, the pricing page has 8", len(Overheads()))
	}
}
