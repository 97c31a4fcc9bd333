package cli

import "runtime/debug"

// version is set at link time: -ldflags "-X github.com/mcpcost/mcpcost/internal/cli.version=v1.2.3".
var version string

// Version returns mcpcost's version: the link-time value, else the module
// version from the build information, else "devel".
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
