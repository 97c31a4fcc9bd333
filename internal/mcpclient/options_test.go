package mcpclient

import "time"

// testOptions are the options of the tests' measurements.
func testOptions() Options {
	return Options{
		Timeout:          5 * time.Second, // generous: the machine may be busy
		KillGrace:        400 * time.Millisecond,
		MaxResponseBytes: 1 << 20,
		MaxPages:         20,
		MaxTools:         10000,
	}
}
