package automium_test

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/automium/automium"
	"github.com/automium/automium/internal/limit"
	"github.com/automium/automium/internal/testsupport"
	"github.com/google/go-cmp/cmp"
)

// Safety proofs at the source level. The process-level proofs (strace, protocol
// abuse, memory, concurrency) are in tools/internal/safetytest; SECURITY.md lists both.

// testTools are the only directories whose non-test code may start processes,
// read /proc, touch files or serve on a socket, because none of it is part of
// the server: tools/automium-bench runs automium-mcp as a child to
// measure it, tools/conformance-fixture serves the conformance suite's
// fixtures on loopback for CI, tools/playwright-export writes the
// exported specs CI proves with Playwright, tools/duckcounts (a module of
// its own, with cgo) writes the counts snapshot it is asked to, tools/gen and
// internal/gen/apply are go generate's, and internal/testsupport builds and
// runs the binary for tests.
// TestDevToolsNotInTheServer proves that automium-mcp links none of them.
var testTools = []string{"tools/automium-bench", "tools/conformance-fixture", "tools/playwright-export", "tools/duckcounts", "tools/gen", "internal/gen/apply", "internal/testsupport"}

// forbiddenImports are packages non-test code must not import: networking,
// processes, plugins, cgo, raw system calls and memory, and the SDK's HTTP and
// OAuth support.
var forbiddenImports = []*regexp.Regexp{
	regexp.MustCompile(`^net(/.*)?$`),
	regexp.MustCompile(`^os/(exec|user)$`),
	regexp.MustCompile(`^(plugin|unsafe|C|runtime/cgo|io/ioutil|log/syslog|crypto/tls)$`),
	regexp.MustCompile(`^debug/`),
	regexp.MustCompile(`^golang\.org/x/sys/`),
	regexp.MustCompile(`^golang\.org/x/(net|oauth2)(/.*)?$`),
	regexp.MustCompile(`^github\.com/modelcontextprotocol/go-sdk/(auth|oauthex)(/.*)?$`),
}

// allowedSelectors are the only members of os and syscall that non-test code may
// use: the standard streams, the exit status, the arguments, the signals the
// server handles, the broken-pipe error it recognizes and the fstat result whose
// device number tells a terminal. Everything else in os (Getenv, LookupEnv, Environ, ExpandEnv,
// Open, ReadFile, Create, WriteFile, Mkdir, Remove, Executable, UserHomeDir,
// DirFS, OpenRoot, ...) is out.
var allowedSelectors = map[string][]string{
	"os":      {"Args", "Exit", "File", "Interrupt", "ModeCharDevice", "Signal", "Stderr", "Stdin", "Stdout"},
	"syscall": {"EPIPE", "SIGINT", "SIGPIPE", "SIGTERM", "Stat_t"},
}

// httpModeFiles are the files of the opt-in -http mode, the only non-test code
// allowed to serve on a socket: the binary listens on loopback there, behind a
// bearer token. They may import httpModeImports, use the SDK's Streamable HTTP
// handler, and os.NewFile (-token-fd wraps an inherited descriptor; it opens
// nothing); every other rule applies to them too. TestStraceWholeHTTPSession
// (tools/internal/safetytest) proves from the kernel what that mode does, and
// TestStraceWholeSession that stdio mode never opens a socket.
var httpModeFiles = []string{"cmd/automium-mcp/http.go", "mcpserver/transport/http.go", "mcpserver/transport/connlimit.go", "mcpserver/transport/rpcwriter.go"}

// fileOwners are the directories whose non-test code owns files a user names,
// and the extra members of os and syscall each may use for that; every other
// rule applies to them: no environment, process or socket. The command line,
// automium, reads the files a user names and writes the files it is told to
// write (stat, lstat to refuse a symbolic link in an output's place, open
// without blocking, a temporary file renamed into place with the old file's
// mode).
// The step store, binding/boltstore, creates, checks and opens the one store
// file its caller names (issue 40: creating is explicit, and the file bbolt
// opens, without blocking, is checked before bbolt maps it). automium-mcp
// links neither: it imports package binding for the catalog digest, never
// binding/boltstore. Each list is exactly what its owner's code uses: an
// entry no longer used fails the test.
var fileOwners = map[string][]string{
	"cmd/automium/": {"CreateTemp", "ErrNotExist", "ErrPermission", "FileInfo", "FileMode", "Lstat", "ModeDevice", "ModeNamedPipe", "ModeSymlink",
		"O_NONBLOCK", "O_RDONLY", "OpenFile", "PathError", "Remove", "Rename", "SameFile", "Stat"},
	"binding/boltstore/": {"FileMode", "O_CREATE", "O_EXCL", "O_NONBLOCK", "O_RDWR", "OpenFile", "Remove", "Stat"},
}

var (
	httpModeImports   = regexp.MustCompile(`^net(/http|/netip|/url)?$`)
	httpModeSelectors = []string{"NewStreamableHTTPHandler", "StreamableHTTPHandler", "NewFile"}
)

// forbiddenSDKSelectors are go-sdk members that start processes, open sockets or
// serve files, whatever package they are reached through.
var forbiddenSDKSelectors = []string{
	"CommandTransport", "FileResourceHandler", "NewSSEHandler", "NewStreamableHTTPHandler", "SSEClientTransport",
	"SSEHandler", "SSEServerTransport", "StreamableClientTransport", "StreamableHTTPHandler", "StreamableServerTransport",
}

// TestNoForbiddenCallsInNonTestCode parses every non-test Go file of the module
// (except the benchmark harness) and fails on anything that could read the
// environment or credentials, touch the filesystem, open a socket or start a
// process: a forbidden import, a use of os or syscall outside a short allowlist,
// an SDK transport or handler that does I/O, a //go:linkname, or cgo. With this,
// the environment is never read by Automium code; TestDependencyEnvironmentReads
// covers the dependencies.
func TestNoForbiddenCallsInNonTestCode(t *testing.T) {
	files := nonTestGoFiles(t)
	if len(files) < 10 {
		t.Fatalf("found only %d non-test Go files; the walk is broken", len(files))
	}
	var problems []string
	scanned := 0
	used := map[string]bool{} // "dir sel" of fileOwners used
	for _, path := range files {
		if slices.ContainsFunc(testTools, func(dir string) bool { return strings.HasPrefix(filepath.ToSlash(path), dir+"/") }) {
			continue
		}
		scanned++
		p, u := forbiddenUses(t, path)
		problems = append(problems, p...)
		for _, sel := range u {
			used[sel] = true
		}
	}
	if len(problems) > 0 {
		t.Errorf("non-test code outside %s must not read the environment, touch files, open sockets or start processes:\n  %s",
			strings.Join(testTools, ", "), strings.Join(problems, "\n  "))
	}
	// The allow-list is exactly what each owner uses: an entry its code no
	// longer uses would allow it again unseen.
	for dir, sels := range fileOwners {
		for _, sel := range sels {
			if !used[dir+" "+sel] {
				t.Errorf("fileOwners allows %s%s, which its non-test code does not use; remove it", dir, sel)
			}
		}
	}
	t.Logf("scanned %d files", scanned)
}

// TestDevToolsNotInTheServer lists every package linked into automium-mcp (go
// list -deps) and fails if one is a testTools package, whose code is allowed what
// the server's is not, or the safety tests' package, whose non-test files hold
// the scripts the tests replay. (The generator's registrations are built only
// with the automiumgen tag, which the server is not built with.)
func TestDevToolsNotInTheServer(t *testing.T) {
	t.Parallel() // it waits for go list
	out := serverDeps(t)
	var deps []string
	for line := range strings.Lines(out) {
		deps = append(deps, strings.Split(line, "\t")[0])
	}
	if !slices.Contains(deps, "github.com/automium/automium/mcpserver") {
		t.Fatalf("go list -deps did not list mcpserver; the listing is broken:\n%s", out)
	}
	for _, dir := range append(slices.Clone(testTools), "tools/internal/safetytest", "tools/internal/conformancefixture", "tools/internal/digestvectors") {
		if slices.Contains(deps, "github.com/automium/automium/"+dir) {
			t.Errorf("automium-mcp links github.com/automium/automium/%s, which is not server code", dir)
		}
	}
}

// serverDeps is go list -deps of automium-mcp, one line a package: its import
// path, whether it is the standard library's, its directory, its Go files
// and its module, tab-separated. One go list serves every test that asks.
func serverDeps(t *testing.T) string {
	t.Helper()
	out, err := listServerDeps()
	if errors.Is(err, exec.ErrNotFound) {
		t.Skip("the go command is not on PATH")
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var listServerDeps = sync.OnceValues(func() (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	out, err := exec.Command(goTool, "list", "-deps", "-tags="+testsupport.ServerBuildTags, "-f", "{{.ImportPath}}\t{{.Standard}}\t{{.Dir}}\t{{join .GoFiles \",\"}}\t{{with .Module}}{{.Path}}{{end}}", "./cmd/automium-mcp").Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return "", fmt.Errorf("go list: %v\n%s", err, exit.Stderr)
	}
	return string(out), err
})

// TestForbiddenUsesAreCaught runs the scanner on code that breaks every rule, so
// TestNoForbiddenCallsInNonTestCode is known to be able to fail.
func TestForbiddenUsesAreCaught(t *testing.T) {
	src := `package bad

import (
	"net/http"
	"os"
	"os/exec"
	sys "syscall"
	_ "unsafe"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//go:linkname getenv os.Getenv
func getenv(string) string

func f() {
	_ = os.Getenv("AWS_SECRET_ACCESS_KEY")
	_, _ = os.LookupEnv("GITHUB_TOKEN")
	_ = os.Environ()
	_, _ = os.ReadFile("/etc/passwd")
	_ = os.WriteFile("/tmp/x", nil, 0o644)
	read := os.Open
	_ = read
	_ = exec.Command("sh")
	_, _ = http.Get("https://example.com")
	_, _ = sys.Getenv("HOME")
	_ = &mcp.CommandTransport{}
	_, _ = any(nil).(*mcp.StreamableClientTransport)
	_ = new(mcp.StreamableClientTransport)
	_ = os.Stdout
}
`
	path := filepath.Join(t.TempDir(), "bad.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, _ := forbiddenUses(t, path)
	for i := range got {
		got[i] = strings.TrimPrefix(got[i], path+":")
	}
	want := []string{
		`4: import "net/http"`,
		`6: import "os/exec"`,
		`8: import "unsafe"`,
		`12: //go:linkname getenv os.Getenv`,
		`16: os.Getenv`,
		`17: os.LookupEnv`,
		`18: os.Environ`,
		`19: os.ReadFile`,
		`20: os.WriteFile`,
		`21: os.Open`,
		`25: syscall.Getenv`,
		`26: mcp.CommandTransport`,
		`28: mcp.StreamableClientTransport`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("forbidden uses (-want +got):\n%s", diff)
	}
}

// nonTestGoFiles lists the module's non-test Go files, skipping testdata,
// node_modules and hidden directories, as the go command does.
func nonTestGoFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != "." && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// forbiddenUses returns "file:line: what" for each rule path breaks, and
// "dir sel" for each selector of its fileOwners entry it uses.
func forbiddenUses(t *testing.T, path string) (problems, usedOwned []string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	httpMode := slices.Contains(httpModeFiles, filepath.ToSlash(path))
	var owned []string
	var ownerDir string
	for dir, sels := range fileOwners {
		if strings.HasPrefix(filepath.ToSlash(path), dir) {
			owned, ownerDir = sels, dir
		}
	}
	report := func(pos token.Pos, what string) {
		problems = append(problems, fmt.Sprintf("%s:%d: %s", path, fset.Position(pos).Line, what))
	}
	// Local names of the restricted packages in this file.
	restricted := map[string]string{}
	for _, imp := range f.Imports {
		ipath, _ := strconv.Unquote(imp.Path.Value)
		for _, re := range forbiddenImports {
			if re.MatchString(ipath) && !(httpMode && httpModeImports.MatchString(ipath)) {
				report(imp.Pos(), fmt.Sprintf("import %q", ipath))
			}
		}
		if _, ok := allowedSelectors[ipath]; ok {
			name := ipath
			if imp.Name != nil {
				name = imp.Name.Name
			}
			restricted[name] = ipath
		}
	}
	for _, group := range f.Comments {
		for _, c := range group.List {
			if strings.HasPrefix(c.Text, "//go:linkname") {
				report(c.Pos(), c.Text)
			}
		}
	}
	// A type assertion only asks what a value is: naming an SDK transport
	// there (binding/dispatch leaves streamable HTTP untapped) makes nothing.
	asserted := map[*ast.SelectorExpr]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if ta, ok := n.(*ast.TypeAssertExpr); ok {
			typ := ta.Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if sel, ok := typ.(*ast.SelectorExpr); ok {
				asserted[sel] = true
			}
		}
		return true
	})
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if httpMode && slices.Contains(httpModeSelectors, sel.Sel.Name) {
			return true
		}
		if slices.Contains(forbiddenSDKSelectors, sel.Sel.Name) && !asserted[sel] {
			if x, ok := sel.X.(*ast.Ident); ok {
				report(sel.Pos(), x.Name+"."+sel.Sel.Name)
			} else {
				report(sel.Pos(), "."+sel.Sel.Name)
			}
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		ipath, ok := restricted[x.Name]
		switch {
		case !ok:
		case slices.Contains(owned, sel.Sel.Name):
			usedOwned = append(usedOwned, ownerDir+" "+sel.Sel.Name)
		case !slices.Contains(allowedSelectors[ipath], sel.Sel.Name):
			report(sel.Pos(), ipath+"."+sel.Sel.Name)
		}
		return true
	})
	return problems, usedOwned
}

// expectedDependencyEnvReads are the only environment reads in the third-party
// code linked into automium-mcp, found by TestDependencyEnvironmentReads. None
// is credential-like: each is a debug switch of the library that reads it.
var expectedDependencyEnvReads = []string{
	// go-sdk compatibility switches, parsed once at init (a malformed value
	// panics the process).
	`github.com/modelcontextprotocol/go-sdk/internal/mcpgodebug: os.Getenv("MCPGODEBUG")`,
	// jsonschema-go's inference switch (typeschemasnull=1), read when a schema is
	// inferred; Automium ships precomputed schemas, but derivation may still run.
	`github.com/google/jsonschema-go/jsonschema: os.Getenv("JSONSCHEMAGODEBUG")`,
	`github.com/google/jsonschema-go/jsonschema: os.Getenv("JSONSCHEMAGODEBUG")`,
	`github.com/google/jsonschema-go/jsonschema: os.Getenv("JSONSCHEMAGODEBUG")`,
	// CPU feature overrides, the same switch the runtime reads.
	`golang.org/x/sys/cpu: os.Getenv("GODEBUG")`,
}

// credentialLike matches environment variable names that hold secrets.
var credentialLike = regexp.MustCompile(`(?i)(token|key|secret|passw|credential|auth|session|cookie|^aws_|^gcp_|^azure_)`)

// TestDependencyEnvironmentReads lists every package linked into automium-mcp
// (go list -deps), parses the Go files of each third-party one from the module
// cache, and finds every call that reads the environment: os.Getenv, LookupEnv,
// Environ, ExpandEnv and syscall.Getenv. The names they read, resolved through
// constants, must be exactly expectedDependencyEnvReads, and none may look like a
// credential. The standard library is not scanned: it reads GODEBUG-style
// switches, and its proxy variables only when an HTTP client runs, which the
// strace test shows never happens (no socket is ever opened).
func TestDependencyEnvironmentReads(t *testing.T) {
	t.Parallel() // it waits for go list
	out := serverDeps(t)
	var got []string
	packages := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		fields := strings.Split(line, "\t")
		if len(fields) != 5 || fields[1] == "true" {
			continue // the standard library
		}
		importPath, dir, goFiles, module := fields[0], fields[2], fields[3], fields[4]
		if module == "github.com/automium/automium" {
			continue // TestNoForbiddenCallsInNonTestCode covers our own code
		}
		packages++
		got = append(got, environmentReads(t, importPath, dir, strings.Split(goFiles, ","))...)
	}
	if packages < 10 {
		t.Fatalf("go list found only %d third-party packages; the listing is broken:\n%s", packages, out)
	}
	slices.Sort(got)
	want := slices.Sorted(slices.Values(expectedDependencyEnvReads))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("environment reads in the dependencies of automium-mcp changed (-want +got); review each new one and update expectedDependencyEnvReads and SECURITY.md:\n%s", diff)
	}
	for _, r := range got {
		if name := r[strings.Index(r, "(")+1 : len(r)-1]; credentialLike.MatchString(name) || !strings.HasPrefix(name, `"`) {
			t.Errorf("a dependency reads a credential-like or computed environment variable: %s", r)
		}
	}
	t.Logf("%d third-party packages scanned", packages)
}

// environmentReads returns "importPath: os.Getenv(NAME)" for each environment
// read in the package, with NAME a quoted literal when the argument is a string
// literal or a string constant of the package, and the argument's source text
// otherwise.
func environmentReads(t *testing.T, importPath, dir string, goFiles []string) []string {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range goFiles {
		if name == "" {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", importPath, err)
		}
		files = append(files, f)
	}
	consts := map[string]string{}
	for _, f := range files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							consts[name.Name] = lit.Value
						}
					}
				}
			}
		}
	}
	var reads []string
	for _, f := range files {
		local := map[string]string{}
		for _, imp := range f.Imports {
			ipath, _ := strconv.Unquote(imp.Path.Value)
			if ipath != "os" && ipath != "syscall" {
				continue
			}
			name := ipath
			if imp.Name != nil {
				name = imp.Name.Name
			}
			local[name] = ipath
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok || local[x.Name] == "" {
				return true
			}
			switch sel.Sel.Name {
			case "Getenv", "LookupEnv", "Environ", "ExpandEnv", "Expand":
			default:
				return true
			}
			reads = append(reads, fmt.Sprintf("%s: %s.%s(%s)", importPath, local[x.Name], sel.Sel.Name, envArgument(fset, f, sel, consts)))
			return true
		})
	}
	return reads
}

// envArgument is the first argument of the call whose function is sel, resolved
// to a quoted literal where possible.
func envArgument(fset *token.FileSet, f *ast.File, sel *ast.SelectorExpr, consts map[string]string) string {
	var arg ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && call.Fun == sel && len(call.Args) > 0 {
			arg = call.Args[0]
		}
		return arg == nil
	})
	switch a := arg.(type) {
	case nil:
		return ""
	case *ast.BasicLit:
		return a.Value
	case *ast.Ident:
		if v, ok := consts[a.Name]; ok {
			return v
		}
		return a.Name
	}
	return fmt.Sprintf("<expression at line %d>", fset.Position(arg.Pos()).Line)
}

// TestOversizedInputsCostTheSameAsJustOversized shows that inputs far over a
// bound are rejected with limit_exceeded before anything proportional to their
// size is built: rejecting 10,000 or 1,000,000 steps (or assertions, entries,
// planners, app IDs, trials) costs the same handful of allocations, for the
// error. BenchmarkRejectHugeJourney shows the time is flat too.
func TestOversizedInputsCostTheSameAsJustOversized(t *testing.T) {
	ctx := context.Background()
	journey := firstReferenceJourney(t)
	planner := automium.PlannerRef{ID: "p", Vendor: "v", Model: "m"}
	// Each case builds an input with n elements and returns the call to measure.
	cases := []struct {
		name  string
		limit int
		build func(n int) func() error
	}{
		{"journey steps", limit.MaxSteps, func(n int) func() error {
			in := journey
			in.Steps = make([]automium.Step, n)
			return func() error { _, err := automium.CompileJourney(ctx, in); return err }
		}},
		{"journey assertions", limit.MaxAssertions, func(n int) func() error {
			in := journey
			in.Assertions = make([]automium.Assertion, n)
			return func() error { _, err := automium.CompileJourney(ctx, in); return err }
		}},
		{"artifact entries", limit.MaxArtifactEntries, func(n int) func() error {
			in := automium.GetArtifactManifestInput{RunID: "run-0123456789abcdef0123", Root: "r", Entries: make([]automium.ArtifactEntry, n)}
			return func() error { _, err := automium.GetArtifactManifest(ctx, in); return err }
		}},
		{"planners", limit.MaxPlanners, func(n int) func() error {
			in := automium.ComparePlannersInput{Rows: automium.RowSelection{All: true}, CorpusVersion: automium.CorpusVersion, AppIDs: []string{journey.AppID}, Planners: make([]automium.PlannerRef, n)}
			return func() error { _, err := automium.ComparePlanners(ctx, in); return err }
		}},
		{"app IDs", limit.MaxAppIDs, func(n int) func() error {
			in := automium.ComparePlannersInput{Rows: automium.RowSelection{All: true}, CorpusVersion: automium.CorpusVersion, AppIDs: make([]string, n), Planners: []automium.PlannerRef{planner}}
			return func() error { _, err := automium.ComparePlanners(ctx, in); return err }
		}},
		{"observed trials", limit.MaxObservedTrials, func(n int) func() error {
			in := automium.CompareObservedTrialsInput{Rows: automium.RowSelection{All: true}, CorpusVersion: automium.CorpusVersion, Planners: []automium.PlannerRef{planner}, Trials: make([]automium.Trial, n)}
			return func() error { _, err := automium.CompareObservedTrials(ctx, in); return err }
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// Both sizes are far over the limit and above 255, so that formatting
			// the count in the message allocates alike (Go boxes integers below 256
			// without allocating).
			over, huge := max(10_000, c.limit+1_000), max(1_000_000, 10*c.limit)
			if testing.Short() {
				// Still ten times over (twice for trials): a per-element cost would
				// show; the full run's million elements cost a second of memory.
				huge = max(100_000, 2*over)
			}
			overCall, hugeCall := c.build(over), c.build(huge)
			for n, call := range map[int]func() error{over: overCall, huge: hugeCall} {
				var e *automium.Error
				if err := call(); !errors.As(err, &e) || e.Code != automium.CodeLimitExceeded {
					t.Fatalf("%d elements: error %v, want limit_exceeded", n, err)
				}
			}
			overAllocs := testing.AllocsPerRun(20, func() { _ = overCall() })
			hugeAllocs := testing.AllocsPerRun(20, func() { _ = hugeCall() })
			// Without -race both counts are equal (6: the error, its problem and
			// the message's parts), whatever the size. The race detector adds a few
			// allocations of its own at random, so under it only a ceiling that no
			// per-element cost could stay under is checked.
			if testsupport.RaceEnabled {
				if overAllocs > 16 || hugeAllocs > 16 {
					t.Errorf("rejecting %d elements costs %.0f allocations, rejecting %d costs %.0f; want at most 16 under -race whatever the size", over, overAllocs, huge, hugeAllocs)
				}
				return
			}
			if overAllocs != hugeAllocs || hugeAllocs > 8 {
				t.Errorf("rejecting %d elements costs %.0f allocations, rejecting %d costs %.0f; want the same count, at most 8, whatever the size", over, overAllocs, huge, hugeAllocs)
			}
		})
	}
}

func firstReferenceJourney(t testing.TB) automium.CompileJourneyInput {
	t.Helper()
	fixtures, err := automium.ListFixtures(context.Background(), automium.ListFixturesInput{})
	if err != nil {
		t.Fatal(err)
	}
	j, ok := automium.ReferenceJourney(fixtures.Fixtures[0].ReferenceJourneyIDs[0])
	if !ok {
		t.Fatal("no reference journey")
	}
	return j
}

// BenchmarkRejectHugeJourney measures rejecting journeys of 201, 100,000 and
// 1,000,000 steps: the cost, in time and allocations, does not depend on the size,
// because CompileJourney checks the length before validating or building
// anything. (The input slice is built once, outside the loop.)
func BenchmarkRejectHugeJourney(b *testing.B) {
	ctx := context.Background()
	journey := firstReferenceJourney(b)
	for _, n := range []int{limit.MaxSteps + 1, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			in := journey
			in.Steps = make([]automium.Step, n)
			for i := range in.Steps {
				in.Steps[i] = automium.Step{Intent: "click", Target: &automium.Target{Role: "button", Name: "Next"}}
			}
			b.ReportAllocs()
			for b.Loop() {
				var e *automium.Error
				if _, err := automium.CompileJourney(ctx, in); !errors.As(err, &e) || e.Code != automium.CodeLimitExceeded {
					b.Fatalf("error %v, want limit_exceeded", err)
				}
			}
		})
	}
}
