package safetytest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/automium/automium/internal/testsupport"
	"github.com/google/go-cmp/cmp"
)

// The strace proof checks the binary serverBinary builds, with CGO_ENABLED=0
// and testsupport.ServerBuildTags. A default build on a machine with a C
// compiler is a different program: it links the C library dynamically, opens
// the loader's files and honours LD_PRELOAD, and the allowlist says nothing
// about it. A build without the tags links validator code the proof never
// ran and is 3.5 MB bigger (docs/performance.md). So every command the README
// gives a user to build or start the server from source must make the proven
// build.

// goBuildLine matches a shell line that builds the server from source.
var goBuildLine = regexp.MustCompile(`\bgo (install|build|run)\b.*automium-mcp`)

// jsonGoCommand matches a client config that starts the server with go itself,
// in JSON or TOML, and staticEnv the env entry that makes that build static.
var (
	jsonGoCommand = regexp.MustCompile(`"command":\s*"go"|command\s*=\s*"go"`)
	staticEnv     = regexp.MustCompile(`"?CGO_ENABLED"?\s*[:=]\s*"0"`)
)

// provenTags matches the build flag that gives the proven build's tags, as a
// shell word or a JSON or TOML argument.
var provenTags = regexp.MustCompile(`-tags[=", ]+` + regexp.QuoteMeta(testsupport.ServerBuildTags) + `\b`)

// unprovenBuilds returns every build of the server in markdown's code blocks
// that does not make the static build with the proven tags, and how many
// builds it found in all. A shell line must set CGO_ENABLED=0 itself, except
// under the MCP Inspector, which starts its server with only a few of its own
// environment variables and so must pass it with -e. A client config whose
// command is go must set CGO_ENABLED to "0" in its env. Each must pass
// -tags with testsupport.ServerBuildTags.
func unprovenBuilds(markdown string) (bad []string, builds int) {
	var block []string
	inBlock := false
	for _, line := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			if inBlock {
				b, n := unprovenInBlock(block)
				bad = append(bad, b...)
				builds += n
				block = block[:0]
			}
			inBlock = !inBlock
			continue
		}
		if inBlock {
			block = append(block, line)
		}
	}
	return bad, builds
}

// unprovenInBlock applies unprovenBuilds to the lines of one code block.
func unprovenInBlock(lines []string) (bad []string, builds int) {
	text := strings.Join(lines, "\n")
	if jsonGoCommand.MatchString(text) {
		builds++
		if !staticEnv.MatchString(text) || !provenTags.MatchString(text) {
			bad = append(bad, strings.TrimSpace(jsonGoCommand.FindString(text)))
		}
	}
	for _, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "#") || !goBuildLine.MatchString(line) {
			continue
		}
		builds++
		// Each command of a chain (build && run) stands alone: a build
		// before the Inspector starts is the shell's, one the Inspector
		// starts gets only the variables it passes with -e.
		for _, cmd := range strings.Split(line, "&&") {
			if !goBuildLine.MatchString(cmd) {
				continue
			}
			want := "CGO_ENABLED=0"
			if strings.Contains(cmd, "inspector") {
				want = "-e CGO_ENABLED=0"
			}
			if !strings.Contains(cmd, want) || !provenTags.MatchString(cmd) {
				bad = append(bad, strings.TrimSpace(line))
				break
			}
		}
	}
	return bad, builds
}

// TestREADMEBuildsTheProvenBinary keeps the build commands a user copies, in
// the README's quick start and install, the guide's client configs and
// CONTRIBUTING.md, on the build the strace proof traces.
func TestREADMEBuildsTheProvenBinary(t *testing.T) {
	for _, doc := range []struct {
		file      string
		minBuilds int
	}{
		// The quick start's one command and its run line, and the install.
		{"README.md", 3},
		{"docs/guide.md", 0},
		{"CONTRIBUTING.md", 0},
	} {
		text, err := os.ReadFile(filepath.Join(repoRoot, doc.file))
		if err != nil {
			t.Fatal(err)
		}
		bad, builds := unprovenBuilds(string(text))
		if diff := cmp.Diff([]string(nil), bad); diff != "" {
			t.Errorf("%s builds automium-mcp without CGO_ENABLED=0 or -tags %s, which is not the binary SECURITY.md traces (-want +got):\n%s", doc.file, testsupport.ServerBuildTags, diff)
		}
		if builds < doc.minBuilds {
			t.Errorf("%s has %d commands that build automium-mcp; want at least %d, or this test checks nothing", doc.file, builds, doc.minBuilds)
		}
	}
}

// TestUnprovenBuilds checks the checker on the forms it must tell apart.
func TestUnprovenBuilds(t *testing.T) {
	for _, tc := range []struct {
		name       string
		markdown   string
		wantBad    []string
		wantBuilds int
	}{
		{
			name:       "static install",
			markdown:   "```sh\nCGO_ENABLED=0 go install -tags validator_novalidatefn ./cmd/automium-mcp\n```\n",
			wantBuilds: 1,
		},
		{
			name:       "static install without the proven tags",
			markdown:   "```sh\nCGO_ENABLED=0 go install ./cmd/automium-mcp\n```\n",
			wantBad:    []string{"CGO_ENABLED=0 go install ./cmd/automium-mcp"},
			wantBuilds: 1,
		},
		{
			name:       "default install",
			markdown:   "```sh\ngo install github.com/automium/automium/cmd/automium-mcp@latest\n```\n",
			wantBad:    []string{"go install github.com/automium/automium/cmd/automium-mcp@latest"},
			wantBuilds: 1,
		},
		{
			name:       "a command outside a code block is prose",
			markdown:   "Run go install ./cmd/automium-mcp to install.\n",
			wantBuilds: 0,
		},
		{
			name:       "a shell comment is not a command",
			markdown:   "```sh\n# go run ./cmd/automium-mcp waits for a client\n```\n",
			wantBuilds: 0,
		},
		{
			name:       "Inspector passing the variable to the server",
			markdown:   "```sh\nnpx -y @modelcontextprotocol/inspector@2.12.0 --cli -e CGO_ENABLED=0 go run -tags=validator_novalidatefn ./cmd/automium-mcp --method tools/list\n```\n",
			wantBuilds: 1,
		},
		{
			name:       "a static build, then the Inspector on the built binary",
			markdown:   "```sh\nCGO_ENABLED=0 GOTOOLCHAIN=go1.27.3 go build -tags validator_novalidatefn -o automium-mcp ./cmd/automium-mcp && npx -y @modelcontextprotocol/inspector@2.12.0 --cli ./automium-mcp --method tools/list\n```\n",
			wantBuilds: 1,
		},
		{
			name:       "a default build, then the Inspector",
			markdown:   "```sh\ngo build -o automium-mcp ./cmd/automium-mcp && npx -y @modelcontextprotocol/inspector@2.12.0 --cli -e CGO_ENABLED=0 ./automium-mcp\n```\n",
			wantBad:    []string{"go build -o automium-mcp ./cmd/automium-mcp && npx -y @modelcontextprotocol/inspector@2.12.0 --cli -e CGO_ENABLED=0 ./automium-mcp"},
			wantBuilds: 1,
		},
		{
			name:       "Inspector dropping the variable",
			markdown:   "```sh\nCGO_ENABLED=0 npx -y @modelcontextprotocol/inspector@2.12.0 --cli go run ./cmd/automium-mcp\n```\n",
			wantBad:    []string{"CGO_ENABLED=0 npx -y @modelcontextprotocol/inspector@2.12.0 --cli go run ./cmd/automium-mcp"},
			wantBuilds: 1,
		},
		{
			name:       "client config running go with the variable",
			markdown:   "```json\n{\"mcpServers\": {\"automium\": {\"command\": \"go\", \"args\": [\"run\", \"-tags\", \"validator_novalidatefn\", \"./cmd/automium-mcp\"], \"env\": {\"CGO_ENABLED\": \"0\"}}}}\n```\n",
			wantBuilds: 1,
		},
		{
			name:       "client config running go without the proven tags",
			markdown:   "```json\n{\"mcpServers\": {\"automium\": {\"command\": \"go\", \"args\": [\"run\", \"./cmd/automium-mcp\"], \"env\": {\"CGO_ENABLED\": \"0\"}}}}\n```\n",
			wantBad:    []string{`"command": "go"`},
			wantBuilds: 1,
		},
		{
			name:       "client config running go without it",
			markdown:   "```toml\n[mcp_servers.automium]\ncommand = \"go\"\nargs = [\"run\", \"./cmd/automium-mcp\"]\n```\n",
			wantBad:    []string{`command = "go"`},
			wantBuilds: 1,
		},
		{
			name:       "client config starting the installed binary",
			markdown:   "```json\n{\"mcpServers\": {\"automium\": {\"command\": \"automium-mcp\"}}}\n```\n",
			wantBuilds: 0,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad, builds := unprovenBuilds(tc.markdown)
			if diff := cmp.Diff(tc.wantBad, bad); diff != "" {
				t.Errorf("unproven builds (-want +got):\n%s", diff)
			}
			if builds != tc.wantBuilds {
				t.Errorf("builds = %d, want %d", builds, tc.wantBuilds)
			}
		})
	}
}
