// Package modversion names the version of a module in the running binary
// from the build information the Go toolchain stamps: a release version such
// as v1.2.3 after `go install ...@v1.2.3`, a pseudo-version with the commit
// and +dirty for a build in a checkout, or "devel" with the VCS revision
// ("devel+aa7417a1b2c3", ".dirty" when modified) when the toolchain recorded
// a revision but no version, and plain "devel" when it recorded neither. It
// never reports the all-zero pseudo-version a directory replace produces: a
// client pinning a server by version must not be told two different builds
// are the same release. It is a leaf with no dependencies; the MCP server
// reports what it names as its version.
package modversion

import (
	"runtime/debug"
	"strings"
)

// develVersion is reported when the build says nothing true about which
// version of the module this is: `go run`, `go test`, -buildvcs=false, or the
// module replaced by a directory in an embedding program's go.mod.
const develVersion = "devel"

// Of is the version of module in the build bi describes (nil: none known), as
// the package doc says. It is pure, so every case is tested with a constructed
// BuildInfo.
func Of(bi *debug.BuildInfo, module string) string {
	if bi == nil {
		return develVersion
	}
	if bi.Main.Path == module {
		if known(bi.Main.Version) {
			return bi.Main.Version
		}
		return develWithRevision(bi.Settings)
	}
	for _, d := range bi.Deps {
		if d.Path != module {
			continue
		}
		if d.Replace != nil {
			// Replaced by another module version (a fork) is a real version;
			// replaced by a directory is not, and the main module's VCS
			// revision is the embedder's, not the module's.
			if known(d.Replace.Version) {
				return d.Replace.Version
			}
			return develVersion
		}
		if known(d.Version) {
			return d.Version
		}
	}
	return develVersion
}

// known reports whether v names a real version: not empty, not "(devel)", and
// not the all-zero pseudo-version go.mod carries for a module that is only ever
// replaced.
func known(v string) bool {
	return v != "" && v != "(devel)" && !strings.Contains(v, "00010101000000-000000000000")
}

// develWithRevision is "devel", plus the VCS revision the toolchain recorded for
// the main module, cut to 12 hex digits, and ".dirty" when the tree was
// modified.
func develWithRevision(settings []debug.BuildSetting) string {
	var rev string
	var modified bool
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return develVersion
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v := develVersion + "+" + rev
	if modified {
		v += ".dirty"
	}
	return v
}
