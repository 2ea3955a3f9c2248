package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/automium/automium/internal/testsupport"
)

// validatorPackage prefixes the linked symbols of go-playground/validator.
const validatorPackage = "github.com/go-playground/validator/v10."

// TestValidatorPeerLinksTheServersValidator: the go-sdk peer built with
// benchvalidator links every part of the validator that runs at start in
// automium-mcp: its package initialisation, each package-level map's
// initialiser (map.init.N: the country, currency and language tables) and
// every data symbol. Before, the figure in docs/performance.md came from a
// blank import, and the linker dropped the tables and their initialisation,
// so the peer paid almost nothing of what the server pays. The plain peer
// links none of it.
func TestValidatorPeerLinksTheServersValidator(t *testing.T) {
	if testing.Short() {
		t.Skip("builds automium-mcp and two peers; not under -short")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	const peer = "github.com/automium/automium/tools/automium-bench/sdkpeer"
	server := startSymbols(t, "github.com/automium/automium/cmd/automium-mcp", testsupport.ServerBuildTags)
	if len(server) < 10 {
		t.Fatalf("automium-mcp links %d start-up symbols of the validator; this test would check nothing", len(server))
	}
	withValidator := map[string]bool{}
	for _, s := range startSymbols(t, peer, testsupport.ServerBuildTags+",benchvalidator") {
		withValidator[s] = true
	}
	var missing []string
	for _, s := range server {
		if !withValidator[s] {
			missing = append(missing, s)
		}
	}
	if diff := cmp.Diff([]string(nil), missing); diff != "" {
		t.Errorf("the peer built with benchvalidator lacks what automium-mcp links of the validator (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string(nil), startSymbols(t, peer, testsupport.ServerBuildTags)); diff != "" {
		t.Errorf("the plain go-sdk peer links the validator (-want +got):\n%s", diff)
	}
}

// startSymbols builds pkg with tags and returns the validator's symbols that
// matter at start: data, and the functions of package initialisation.
func startSymbols(t *testing.T, pkg, tags string) []string {
	t.Helper()
	bin, err := testsupport.BuildCached(pkg, "-tags="+tags)
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm %s: %v", bin, err)
	}
	var syms []string
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) != 3 || !strings.HasPrefix(f[2], validatorPackage) {
			continue
		}
		name := strings.TrimPrefix(f[2], validatorPackage)
		if text := f[1] == "T" || f[1] == "t"; text && name != "init" && !strings.HasPrefix(name, "map.init.") {
			continue
		}
		syms = append(syms, name)
	}
	return syms
}
