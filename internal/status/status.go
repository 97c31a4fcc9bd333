// Package status names what became of a server in a report: measured,
// one of the failure classes of a measurement, or a reason it was not
// launched. Reports keep the name as a plain string (their JSON field
// "status"); [Status] says what a name means, so that callers ask it
// rather than compare strings.
package status

// Status is a server's status.
type Status string

// The measurement classes. Dynamic is set by the measure package when two
// captures differ; mcpclient reports Measured for any success.
const (
	Measured       Status = "measured"
	Dynamic        Status = "dynamic"
	AuthRequired   Status = "auth-required"    // HTTP 401/403 without OAuth metadata
	RemoteAuthWall Status = "remote-auth-wall" // HTTP 401 with OAuth protected-resource metadata
	StartupFailure Status = "startup-failure"  // cannot start, exited, or cannot be reached
	Timeout        Status = "timeout"          // a budget ran out (named in Detail)
	ProtocolError  Status = "protocol-error"   // the server broke the protocol (named in Detail)
	Cancelled      Status = "cancelled"        // the caller's context was cancelled
)

// The statuses of servers an audit did not measure, for a reason of their
// own entry or of the run.
const (
	Disabled   Status = "disabled"
	Overridden Status = "overridden"
	NeedsInput Status = "needs-input"
	Problem    Status = "problem"
	// NeedsApproval is a server of a project's own config that its client
	// would not start before the user approves it.
	NeedsApproval Status = "needs-approval"
	NotLaunched   Status = "not-launched"
	NotCached     Status = "not-cached"
	// Extension is a server something other than its config provides and
	// starts (a Zed extension), with a launch the config does not hold:
	// its client loads it, and it cannot be measured from the config.
	Extension Status = "extension"
)

// OK reports whether the server was captured: measured or dynamic, so that
// it has a number.
func (s Status) OK() bool { return s == Measured || s == Dynamic }

// Dynamic reports whether two captures of the server differed.
func (s Status) Dynamic() bool { return s == Dynamic }

// Off reports whether the client does not load the server: disabled, or
// overridden by another entry.
func (s Status) Off() bool { return s == Disabled || s == Overridden }

// Skipped reports whether the client would not start the server as
// written: off, or an entry it cannot read.
func (s Status) Skipped() bool { return s.Off() || s == Problem }

// OrMeasured returns s, or Measured where s is empty: a measurement file
// from before statuses were written, or mcp-context-cost's, holds only
// what was measured.
func (s Status) OrMeasured() Status {
	if s == "" {
		return Measured
	}
	return s
}
