package mcpserver

import (
	"runtime/debug"
	"sync"

	"github.com/automium/automium/internal/modversion"
)

// modulePath is the module whose version the server reports.
const modulePath = "github.com/automium/automium"

// Version returns the version of the automium module in this binary, from the
// build information the Go toolchain stamps: a release version such as v1.2.3
// after `go install ...@v1.2.3`, a pseudo-version with the commit and +dirty for
// a build in a checkout, or "devel" with the VCS revision ("devel+aa7417a1b2c3",
// ".dirty" when modified) when the toolchain recorded a revision but no version,
// and plain "devel" when it recorded neither. It never reports the all-zero
// pseudo-version a directory replace produces: a client pinning a server by
// version must not be told two different builds are the same release.
func Version() string { return version() }

var version = sync.OnceValue(func() string {
	bi, _ := debug.ReadBuildInfo()
	return modversion.Of(bi, modulePath)
})
