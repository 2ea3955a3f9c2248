package dispatch_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/automium/automium/binding"
	"github.com/automium/automium/binding/dispatch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixtureEnv names the fixture a re-executed test binary serves on stdio.
const fixtureEnv = "AUTOMIUM_DISPATCH_FIXTURE"

// TestMain lets the test binary double as a stdio MCP fixture server: run with
// fixtureEnv set, it serves that fixture on stdin and stdout and exits.
func TestMain(m *testing.M) {
	switch os.Getenv(fixtureEnv) {
	case "":
		os.Exit(m.Run())
	case "synthetic-ui":
		serveStdio(newFixture(uiIdentity, clickSchema))
	case "synthetic-ui-changed":
		serveStdio(newFixture(uiIdentity, looserClickSchema))
	case "other-ui":
		serveStdio(newFixture(otherIdentity, clickSchema))
	default:
		os.Exit(2)
	}
}

func serveStdio(f *fixture) {
	if err := f.server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// stdioServer starts this test binary as the named stdio fixture and
// returns the dispatcher's own transport over its stdout and stdin, as a
// program that starts a server would.
func stdioServer(t *testing.T, name string) mcp.Transport {
	cmd := fixtureCommand(t, name)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close() // the fixture exits at the end of its input
		if err := cmd.Wait(); err != nil {
			t.Errorf("fixture %s: %v", name, err)
		}
	})
	return &dispatch.IOTransport{Reader: stdout, Writer: stdin}
}

// fixtureCommand is the command that serves the named fixture on stdio.
func fixtureCommand(t *testing.T, name string) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), fixtureEnv+"="+name)
	return cmd
}

// TestStdioFixtures runs the routing, drift and exact-choice cases against
// fixture servers in their own processes over stdio, the way a coordinator
// would start them.
func TestStdioFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	ctx := context.Background()
	g := grants(t, click("button:Sign in"))

	// Over the dispatcher's own transport and go-sdk's CommandTransport: three
	// dispatches, each proved by a replay; on the own transport, the
	// answers of the last two are compared as bytes.
	for _, tr := range []struct {
		name      string
		transport mcp.Transport
		identical uint64
	}{
		{"own", stdioServer(t, "synthetic-ui"), 2},
		{"go-sdk", &mcp.CommandTransport{Command: fixtureCommand(t, "synthetic-ui")}, 0},
	} {
		g := grants(t, click("button:Sign in"), click("button:Next"), click("button:Back"))
		d := dispatch.New(newBroker(t, issuedAt), nil)
		srv, err := d.Connect(ctx, tr.transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("%s: Connect: %v", tr.name, err)
		}
		for i, target := range []string{"button:Sign in", "button:Next", "button:Back"} {
			res, err := d.Dispatch(ctx, g[i], click(target))
			if err != nil {
				t.Fatalf("%s: granted call over stdio: %v", tr.name, err)
			}
			if got, want := res.Content[0].(*mcp.TextContent).Text, `synthetic-ui did click {"target":"`+target+`"}`; got != want {
				t.Errorf("%s: result = %q, want %q", tr.name, got, want)
			}
		}
		if n, same := dispatch.Replayed(srv), dispatch.Identical(srv); n != 3 || same != tr.identical {
			t.Errorf("%s: %d verifications proved by a replay (want 3), %d answers taken as identical bytes (want %d)", tr.name, n, same, tr.identical)
		}
		if err := srv.Close(); err != nil {
			t.Errorf("%s: Close: %v", tr.name, err)
		}
	}

	drifted := dispatch.New(newBroker(t, issuedAt), nil)
	changed, err := drifted.Connect(ctx, stdioServer(t, "synthetic-ui-changed"), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer changed.Close()
	if _, err := drifted.Dispatch(ctx, g[0], click("button:Sign in")); codeOf(err) != binding.CodeContractDrift {
		t.Errorf("changed server over stdio: error %v, want %s", err, binding.CodeContractDrift)
	}

	// Exact choice across two server processes: the chosen candidate runs on
	// its own server, and the step is then used up for the other.
	choice := choiceStep(t, newFixture(uiIdentity, clickSchema), newFixture(otherIdentity, clickSchema))
	two := dispatch.New(newBroker(t, issuedAt), nil)
	for _, name := range []string{"synthetic-ui", "other-ui"} {
		srv, err := two.Connect(ctx, stdioServer(t, name), &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("Connect %s: %v", name, err)
		}
		defer srv.Close()
	}
	onOther := click("button:Sign in")
	onOther.Server = otherIdentity
	res, err := two.Dispatch(ctx, choice[0], onOther)
	if err != nil {
		t.Fatalf("other-ui's candidate over stdio: %v", err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != `other-ui did click {"target":"button:Sign in"}` {
		t.Errorf("result = %q, want other-ui's", got)
	}
	if _, err := two.Dispatch(ctx, choice[0], click("button:Sign in")); codeOf(err) != binding.CodeGrantConsumed {
		t.Errorf("synthetic-ui's candidate of the used step: error %v, want %s", err, binding.CodeGrantConsumed)
	}
}
