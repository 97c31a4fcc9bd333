//go:build race

package mcpclient

// raceEnabled: the race detector slows everything several times over, so
// throughput tests ask for less.
const raceEnabled = true
