package modversion

import (
	"runtime/debug"
	"testing"
)

// module stands for the module whose version is asked for.
const module = "example.com/lib"

func TestOf(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "aa7417a1b2c3d4e5f60718293a4b5c6d7e8f9012"}, {Key: "vcs.modified", Value: "false"}}
	dirty := []debug.BuildSetting{{Key: "vcs.revision", Value: "aa7417a1b2c3d4e5f60718293a4b5c6d7e8f9012"}, {Key: "vcs.modified", Value: "true"}}
	main := func(v string, s []debug.BuildSetting) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: module, Version: v}, Settings: s}
	}
	dep := func(d *debug.Module) *debug.BuildInfo {
		return &debug.BuildInfo{Main: debug.Module{Path: "example.com/embedder", Version: "(devel)"}, Deps: []*debug.Module{d}, Settings: vcs}
	}
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "devel"},
		{"go install at a release", main("v1.2.3", nil), "v1.2.3"},
		{"build in a checkout, stamped pseudo-version", main("v0.0.0-20261130085000-aa7417a1b2c3+dirty", dirty), "v0.0.0-20261130085000-aa7417a1b2c3+dirty"},
		{"(devel) with a VCS revision", main("(devel)", vcs), "devel+aa7417a1b2c3"},
		{"(devel) with a modified tree", main("(devel)", dirty), "devel+aa7417a1b2c3.dirty"},
		{"-buildvcs=false", main("(devel)", nil), "devel"},
		{"all-zero pseudo-version as main", main("v0.0.0-00010101000000-000000000000", nil), "devel"},
		{"dependency at a release", dep(&debug.Module{Path: module, Version: "v1.4.0"}), "v1.4.0"},
		{"dependency replaced by a directory", dep(&debug.Module{Path: module, Version: "v0.0.0-00010101000000-000000000000",
			Replace: &debug.Module{Path: "../lib"}}), "devel"},
		{"dependency replaced by a directory, real require", dep(&debug.Module{Path: module, Version: "v1.4.0",
			Replace: &debug.Module{Path: "../lib"}}), "devel"},
		{"dependency replaced by a fork", dep(&debug.Module{Path: module, Version: "v1.4.0",
			Replace: &debug.Module{Path: "example.com/fork/lib", Version: "v1.4.1-fork.1"}}), "v1.4.1-fork.1"},
		{"not linked in at all", &debug.BuildInfo{Main: debug.Module{Path: "example.com/other"}}, "devel"},
	}
	for _, tt := range tests {
		if got := Of(tt.bi, module); got != tt.want {
			t.Errorf("%s: Of = %q, want %q", tt.name, got, tt.want)
		}
	}
}
