// Package fmacheck holds the cross-compilation proof that the root package's
// arithmetic rounds every product on every target. It takes about 30 s with a
// cold build cache, most of a default test run on a small machine, so it runs
// only when asked: .ci/run runs go test ./internal/fmacheck -crosscompile.
package fmacheck

import (
	"flag"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"testing"
)

var crosscompile = flag.Bool("crosscompile", false, "compile the root package for arm64 and amd64 v3 and look for fused multiply-adds")

// TestNoFusedMultiplyAdd compiles the root package for the targets whose Go
// compiler fuses x*y + z into one multiply-add (arm64 always, amd64 from
// GOAMD64=v3) and fails on any fused instruction. A fused multiply-add skips
// the product's rounding, so a comparison's latencies, tokens and rates (and
// with them a report's bytes) would differ in their last bits from amd64's:
// the same input must give the same bytes on every platform. Write the product
// as float64(x*y) to keep its rounding.
func TestNoFusedMultiplyAdd(t *testing.T) {
	if !*crosscompile {
		t.Skip("compiles the root package for two more targets (about 30 s with a cold build cache); run with -crosscompile, as .ci/run does")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	fused := regexp.MustCompile(`\((\S+\.go:\d+)\)\s+(FN?M(?:ADD|SUB)[DS]|VFN?M(?:ADD|SUB)(?:132|213|231)S[DS])\s`)
	for _, target := range []struct{ name, goarch, goamd64 string }{
		{"arm64", "arm64", ""},
		{"amd64 v3", "amd64", "v3"},
	} {
		t.Run(target.name, func(t *testing.T) {
			cmd := exec.Command(goTool, "build", "-gcflags=-S", "-o", os.DevNull, "github.com/automium/automium")
			cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+target.goarch, "GOAMD64="+target.goamd64, "CGO_ENABLED=0")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go build: %v\n%.2000s", err, out)
			}
			var at []string
			for _, m := range fused.FindAllSubmatch(out, -1) {
				at = append(at, string(m[1])+" "+string(m[2]))
			}
			slices.Sort(at)
			if at = slices.Compact(at); len(at) > 0 {
				t.Errorf("fused multiply-adds for %s, which change floating-point results from amd64's; write each product as float64(x*y):\n%v", target.name, at)
			}
		})
	}
}
