package testsupport

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// ServerBuildTags are the build tags automium-mcp is built with, for users
// (the README's commands), for measurement (docs/performance.md) and for the
// tests' processes, so that the binary the tests trace is the one users run.
// validator_novalidatefn leaves out go-playground/validator's validateFn rule,
// which calls reflect.Value.MethodByName with a name known only at run time:
// that one call makes the linker keep every exported method of every type
// that may reach an interface, and the server binary grew by 3.5 MB (18.8 MB
// against 22.3 MB), with its start-up and resident memory. Automium's rules
// never use validateFn, and schema.go refuses a rule it cannot translate, so
// one cannot slip in. TestServerKeepsDeadMethodElimination (cmd/automium-mcp)
// fails when the binary regains the call.
const ServerBuildTags = "validator_novalidatefn"

// BuildCached builds the main package pkg with CGO_ENABLED=0 and the extra
// go build flags, and returns the path of the binary. The binary is kept in
// os.TempDir, so the test processes of one go test ./... run, and the runs
// after it, build each binary once instead of once per package and run.
//
// Its name is a hash of everything the build reads: the go version, the
// flags, GOFLAGS, GOOS, GOARCH, GOEXPERIMENT and the architecture level
// (GOAMD64 and the like), go.mod and go.sum, and the path and content of
// every file of every package pkg imports outside the standard library
// (go list -deps; the standard library is the go version's). A change to
// any of them is a new name, so a stale binary is never run; the
// checkout's path is in the hash too, since the binary records it. Parallel
// test processes are safe: each builds to a temporary name and renames it,
// so a reader sees a whole binary or none.
func BuildCached(pkg string, flags ...string) (string, error) {
	key, err := buildKey(pkg, flags)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(os.TempDir(), "automium-test-bin")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	out := filepath.Join(dir, path.Base(pkg)+"-"+key)
	if _, err := os.Stat(out); err == nil {
		// Marked as used, so that pruning keeps it (see pruneUnused).
		now := time.Now()
		_ = os.Chtimes(out, now, now)
		return out, nil
	}
	unlock := buildLock()
	defer unlock()
	if _, err := os.Stat(out); err == nil { // built by another process meanwhile
		return out, nil
	}
	tmp, err := os.CreateTemp(dir, ".build-*")
	if err != nil {
		return "", err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	cmd := exec.Command("go", append(append([]string{"build", "-o", tmp.Name()}, flags...), pkg)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", pkg, err, out)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return "", err
	}
	pruneUnused(dir, time.Now().Add(-unusedFor))
	return out, nil
}

// unusedFor is how long a cached binary may go unused before a new build
// removes it: each source change leaves a binary of 13 to 22 MB behind, and
// nothing else would ever remove them. A binary in use by another checkout is
// touched on every hit, so it stays.
const unusedFor = 24 * time.Hour

// pruneUnused removes the cached binaries last used before cutoff, and
// temporary files of builds that died. It is best effort: a file another
// process removes first is no error.
func pruneUnused(dir string, cutoff time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || !info.ModTime().Before(cutoff) {
			continue
		}
		_ = os.Remove(filepath.Join(dir, e.Name()))
	}
}

// buildKey hashes what a build of pkg with flags reads (see BuildCached).
func buildKey(pkg string, flags []string) (string, error) {
	const format = `{{if not .Standard}}{{.ImportPath}}{{"\t"}}{{.Dir}}{{"\t"}}` +
		`{{join .GoFiles " "}} {{join .CgoFiles " "}} {{join .SFiles " "}} {{join .EmbedFiles " "}}{{"\t"}}{{with .Module}}{{.GoMod}}{{end}}{{"\n"}}{{end}}`
	// The build's flags go to go list too: with -tags, the files behind
	// those tags are the ones the build reads, and they must be hashed.
	list := exec.Command("go", append(append([]string{"list", "-deps", "-f", format}, flags...), pkg)...)
	list.Env = append(os.Environ(), "CGO_ENABLED=0")
	var stderr bytes.Buffer
	list.Stderr = &stderr
	listed, err := list.Output()
	if err != nil {
		return "", fmt.Errorf("go list -deps %s: %v\n%s", pkg, err, stderr.Bytes())
	}
	// GOEXPERIMENT and the architecture levels change the binary as a flag
	// does (GOEXPERIMENT=jsonv2 changes encoding/json), so they are hashed
	// too; before, a binary built without them was reused with them.
	version, err := exec.Command("go", "env", "GOVERSION", "GOOS", "GOARCH", "GOFLAGS", "GOEXPERIMENT",
		"GOAMD64", "GOARM", "GOARM64", "GO386", "GORISCV64", "GOPPC64", "GOMIPS", "GOMIPS64", "GOWASM").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %v", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%q\n%q\n%s\n", pkg, flags, version)
	h.Write(listed)
	hashed := map[string]bool{}
	file := func(name string) error {
		if hashed[name] {
			return nil
		}
		hashed[name] = true
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintf(h, "%s\n", name)
		_, err = io.Copy(h, f)
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(listed))
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 4 {
			continue
		}
		for _, name := range strings.Fields(fields[2]) {
			if err := file(filepath.Join(fields[1], name)); err != nil {
				return "", err
			}
		}
		if mod := fields[3]; mod != "" {
			if err := file(mod); err != nil {
				return "", err
			}
			if sum := strings.TrimSuffix(mod, ".mod") + ".sum"; sum != mod {
				if err := file(sum); err != nil && !os.IsNotExist(err) {
					return "", err
				}
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}
