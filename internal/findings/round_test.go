package findings

import (
	"math"
	"testing"
)

// TestRound4Large rounds to four decimals below 1e14 and returns larger
// values as they are: never an int64's wrap (report, findings and HTML
// once showed $-922337203685477.6250 for a cost of 1e15).
func TestRound4Large(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{0, 0},
		{0.00004, 0},
		{0.00005, 0.0001},
		{1.23456, 1.2346},
		{99999999999999, 99999999999999},
		{1e14, 1e14},
		{922337203685477.6, 922337203685477.6},
		{1e15, 1e15},
		{1e19, 1e19},
		{1e308, 1e308},
		{math.Inf(1), math.Inf(1)},
	}
	for _, tt := range tests {
		if got := round4(tt.in); got != tt.want {
			t.Errorf("round4(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
