package status

import "testing"

func TestClasses(t *testing.T) {
	tests := []struct {
		s                         Status
		ok, dynamic, off, skipped bool
	}{
		{Measured, true, false, false, false},
		{Dynamic, true, true, false, false},
		{Timeout, false, false, false, false},
		{StartupFailure, false, false, false, false},
		{Disabled, false, false, true, true},
		{Overridden, false, false, true, true},
		{Problem, false, false, false, true},
		{NeedsApproval, false, false, false, false},
		{NotCached, false, false, false, false},
		{Extension, false, false, false, false},
		{"", false, false, false, false},
	}
	for _, tt := range tests {
		if got := tt.s.OK(); got != tt.ok {
			t.Errorf("%q.OK() = %v, want %v", tt.s, got, tt.ok)
		}
		if got := tt.s.Dynamic(); got != tt.dynamic {
			t.Errorf("%q.Dynamic() = %v, want %v", tt.s, got, tt.dynamic)
		}
		if got := tt.s.Off(); got != tt.off {
			t.Errorf("%q.Off() = %v, want %v", tt.s, got, tt.off)
		}
		if got := tt.s.Skipped(); got != tt.skipped {
			t.Errorf("%q.Skipped() = %v, want %v", tt.s, got, tt.skipped)
		}
	}
	if got := Status("").OrMeasured(); got != Measured {
		t.Errorf("empty OrMeasured = %q", got)
	}
	if got := Timeout.OrMeasured(); got != Timeout {
		t.Errorf("timeout OrMeasured = %q", got)
	}
}
