//go:build race

package audit

// raceEnabled: the race detector's own allocations make allocation
// counts meaningless.
const raceEnabled = true
