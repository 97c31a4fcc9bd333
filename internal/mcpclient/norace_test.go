//go:build !race

package mcpclient

const raceEnabled = false
