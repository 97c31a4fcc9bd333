package redact

import "strings"

// What some commands take that the launch rule reads by the command: a
// password as the value of one of their options, or another command line
// they run (a wrapper's).

var (
	// secretFlag matches the options of any command that name a secret
	// without a secret word: a personal access token, a license key, a
	// password, a JSON web token, a shared access signature.
	secretFlag = lazyRegexp(`(?i)^--(pat|license|pw|jwt|sas)$`)
	// awsKeyID matches an AWS access key id, whose secret access key is
	// the argument after it.
	awsKeyID = lazyRegexp(`^(AKIA|ASIA)[A-Z0-9]{16}$`)
)

// A passwordOption is an option of a command whose value is a password.
type passwordOption struct {
	flag     string
	attached bool // the value may be written on to the flag: -pPW, --user=U:PW
	separate bool // ... or be the argument after it: -p PW
	user     bool // the value is USER:PASSWORD (curl -u), and the password is hidden
	required bool // a value always follows: the argument after it is one even when it starts with "-"
}

// passwordOptions are the options of each command (by commandName) whose
// value is a password: the MySQL and MariaDB clients' -pPW (-p alone
// prompts), mycli's -p [PW], sshpass -p, redis-cli -a, mongosh -p (and
// the legacy mongo's), sqlcmd and bcp -P, curl -u and -U USER:PW.
var passwordOptions = func() map[string][]passwordOption {
	m := map[string][]passwordOption{}
	for c := range mysqlClients {
		m[c] = []passwordOption{{flag: "-p", attached: true}}
	}
	both := func(flag string) []passwordOption {
		return []passwordOption{{flag: flag, attached: true, separate: true}}
	}
	required := func(flag string) []passwordOption {
		return []passwordOption{{flag: flag, attached: true, separate: true, required: true}}
	}
	m["mycli"], m["mongosh"], m["mongo"] = both("-p"), both("-p"), both("-p")
	m["sshpass"], m["sqlcmd"], m["bcp"] = required("-p"), required("-P"), required("-P")
	m["redis-cli"] = []passwordOption{{flag: "-a", separate: true, required: true}}
	var curl []passwordOption
	for _, f := range []string{"-u", "--user", "-U", "--proxy-user"} {
		curl = append(curl, passwordOption{flag: f, attached: true, separate: true, user: true, required: true})
	}
	m["curl"] = curl
	return m
}()

// mysqlClients are the MySQL and MariaDB clients, which take a password
// attached to -p (-phunter2).
var mysqlClients = map[string]bool{
	"mysql": true, "mysqldump": true, "mysqladmin": true, "mysqlimport": true,
	"mysqlshow": true, "mysqlcheck": true, "mysqlpump": true, "mysqlsh": true,
	"mysqlbinlog": true, "mysqlslap": true, "mysql_upgrade": true, "mysql_secure_installation": true,
	"mariadb": true, "mariadb-dump": true, "mariadb-admin": true, "mariadb-import": true,
	"mariadb-show": true, "mariadb-check": true, "mariadb-binlog": true, "mariadb-slap": true,
	"mariadb-upgrade": true, "mariadb-secure-installation": true, "mariadb-backup": true, "mariabackup": true,
}

// What the argument after a password option is.
const (
	hideNone         = iota
	hideValue        // a password
	hideUserPassword // USER:PASSWORD
)

// password reads a, an argument of a command with the password options
// opts: it returns a as shown, what the next argument is and whether it
// is that even when it starts with "-", or false when a is none of opts.
func (h *hider) password(opts []passwordOption, a string) (string, int, bool, bool) {
	for _, o := range opts {
		switch {
		case a == o.flag:
			switch {
			case o.separate && o.user:
				return a, hideUserPassword, o.required, true
			case o.separate:
				return a, hideValue, o.required, true
			}
			return a, hideNone, false, true // -p alone prompts
		case o.attached && strings.HasPrefix(a, o.flag):
			prefix, v := o.flag, a[len(o.flag):]
			if strings.HasPrefix(o.flag, "--") {
				if v[0] != '=' {
					continue // --user-agent
				}
				prefix, v = prefix+"=", v[1:]
			}
			if o.user {
				return prefix + h.userPassword(v), hideNone, false, true
			}
			shown := prefix + h.hide(v)
			if unq := unquote(v); unq != v {
				h.hide(unq)
			}
			return shown, hideNone, false, true
		}
	}
	return "", hideNone, false, false
}

// userPassword hides the password of USER:PASSWORD; a user alone (for
// which curl prompts) is kept.
func (h *hider) userPassword(v string) string {
	if user, pw, ok := strings.Cut(v, ":"); ok && pw != "" {
		return user + ":" + h.hide(pw)
	}
	return v
}

// wrapped returns where the command line that a wrapper at argv[0] runs
// starts, and whether its first word is a command for sure: sudo
// [OPTIONS] [NAME=VALUE...] CMD, doas, a shell's exec [-a NAME] CMD and
// nohup CMD, npx [OPTIONS] PACKAGE, docker (or podman) run [OPTIONS]
// IMAGE [CMD] (CMD may be the image's first argument; with --entrypoint
// CMD, what follows IMAGE is CMD's arguments, and entry is CMD) and exec
// [OPTIONS] CONTAINER CMD, timeout [OPTIONS] DURATION CMD, nice [-n N]
// CMD, uvx [OPTIONS] PACKAGE, and kubectl (or oc) exec [OPTIONS] POD --
// CMD; 0 when argv[0] is no wrapper.
func wrapped(argv []string) (k int, command bool, entry string) {
	switch commandName(argv[0]) {
	case "sudo", "doas":
		return afterOptions(argv, 1, "CDghpRrTtUu", sudoValues, true), true, ""
	case "exec", "nohup":
		return afterOptions(argv, 1, "a", func(string) bool { return false }, false), true, ""
	case "timeout":
		// timeout [OPTIONS] DURATION CMD
		k := afterOptions(argv, 1, "ks", func(o string) bool { return o == "--signal" || o == "--kill-after" }, false)
		return k + 1, true, ""
	case "nice":
		return afterOptions(argv, 1, "n", func(o string) bool { return o == "--adjustment" }, false), true, ""
	case "uvx":
		return afterOptions(argv, 1, "pw", uvxValues, false), true, ""
	case "kubectl", "oc":
		// kubectl exec [OPTIONS] POD -- CMD
		if len(argv) > 1 && argv[1] == "exec" {
			for j := 2; j < len(argv); j++ {
				if argv[j] == "--" {
					return j + 1, true, ""
				}
			}
		}
		return 0, false, ""
	case "npx":
		for _, a := range argv[1:] {
			if a == "-c" || a == "--call" || strings.HasPrefix(a, "--call=") {
				return 0, false, "" // a command string, read as arguments
			}
		}
		return afterOptions(argv, 1, "p", npxValues, false), true, ""
	case "docker", "podman":
		sub := 1
		if len(argv) > 2 && argv[1] == "container" {
			sub = 2
		}
		if len(argv) <= sub || argv[sub] != "run" && argv[sub] != "exec" {
			return 0, false, ""
		}
		k := afterOptions(argv, sub+1, "acehlmpuvw", func(o string) bool { return !dockerFlags[o] }, false)
		if argv[sub] == "run" {
			for j := sub + 1; j < k && j < len(argv); j++ {
				if v, ok := strings.CutPrefix(argv[j], "--entrypoint="); ok {
					entry = v
				} else if argv[j] == "--entrypoint" && j+1 < k {
					entry = argv[j+1]
				}
			}
		}
		return k + 1, argv[sub] == "exec", entry
	}
	return 0, false, ""
}

// sudoValues are sudo's long options that take a value.
func sudoValues(o string) bool {
	switch o {
	case "--user", "--group", "--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--other-user", "--command-timeout", "--chroot":
		return true
	}
	return false
}

// npxValues are npx's (and npm's) long options that take a value.
func npxValues(o string) bool {
	switch o {
	case "--package", "--shell", "--registry", "--cache", "--userconfig", "--prefix", "--workspace":
		return true
	}
	return false
}

// uvxValues are uvx's (uv tool run's) long options that take a value.
func uvxValues(o string) bool {
	switch o {
	case "--from", "--with", "--with-editable", "--with-requirements", "--python", "--index", "--index-url",
		"--extra-index-url", "--find-links", "--constraints", "--overrides", "--cache-dir", "--directory",
		"--project", "--config-file", "--env-file", "--python-preference", "--index-strategy", "--keyring-provider":
		return true
	}
	return false
}

// dockerFlags are the long options of docker run and exec that take no
// value; the others take one.
var dockerFlags = map[string]bool{
	"--rm": true, "--init": true, "--privileged": true, "--read-only": true, "--interactive": true,
	"--tty": true, "--detach": true, "--publish-all": true, "--oom-kill-disable": true,
	"--no-healthcheck": true, "--quiet": true, "--disable-content-trust": true, "--help": true,
	"--sig-proxy": true, "--use-api-socket": true, "--replace": true,
}

// afterOptions returns the index of the first argument of argv from from
// on that is no option: after -- or past each option, and the value of
// each one that takes one (short ones, which may be grouped, in
// shortValues; long ones as longValue tells, or written --NAME=VALUE),
// and, with assignments, past NAME=VALUE.
func afterOptions(argv []string, from int, shortValues string, longValue func(string) bool, assignments bool) int {
	for k := from; k < len(argv); k++ {
		a := argv[k]
		switch {
		case a == "--":
			return k + 1
		case strings.HasPrefix(a, "--"):
			if !strings.Contains(a, "=") && longValue(a) {
				k++
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(shortValues, a[j]) >= 0 {
					if j == len(a)-1 {
						k++ // the value is the next argument; else the rest of a
					}
					break
				}
			}
		case assignments && shAssign().MatchString(a):
		default:
			return k
		}
	}
	return len(argv)
}
