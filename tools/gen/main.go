// Command gen writes every generated file of the module in one pass: go
// generate ./... runs it (the go:generate line is in the root package's
// generate.go). Each package lists its outputs in an unexported function that
// its own tests hold the files to; a file built with the automiumgen tag
// registers that list with package gen, so the generator, built with the tag,
// sees them and the server, built without, links none of it.
//
// Some outputs are read back compiled: the corpus in corpus_data.go decides
// the schemas' enums, schemas/ the tool schemas, the tool schemas the catalog
// digests. One process sees only what was compiled into it, so after writing
// any change gen runs itself again, freshly compiled, until a run changes
// nothing; the files are then the same whatever order they were written in.
// It gives up after a few rounds, which would mean two outputs disagree.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"strconv"

	"github.com/automium/automium/internal/gen"
	"github.com/automium/automium/internal/gen/apply"

	// The packages that own generated files, registering them under the tag.
	_ "github.com/automium/automium"
	_ "github.com/automium/automium/contract"
	_ "github.com/automium/automium/mcpserver"
	_ "github.com/automium/automium/tools/internal/digestvectors"
	_ "github.com/automium/automium/tools/internal/safetytest"
)

// maxRounds bounds the runs; today's outputs settle in two at most (a corpus
// edit: corpus_data.go, then everything derived from the corpus).
const maxRounds = 4

func main() {
	log.SetFlags(0)
	log.SetPrefix("gen: ")
	round := flag.Int("round", 1, "which run this is (set by gen itself when it runs again)")
	flag.Parse()
	root, err := apply.ModuleRoot()
	if err != nil {
		log.Fatal(err)
	}
	sources := gen.Sources()
	if len(sources) == 0 {
		log.Fatal("no package registered its outputs: build with -tags automiumgen, as go generate ./... does")
	}
	var outs []gen.Output
	for _, s := range sources {
		o, err := s.Outputs(os.DirFS(root))
		if err != nil {
			log.Fatalf("%s: %v", s.Name, err)
		}
		outs = append(outs, o...)
	}
	changes, err := apply.Plan(root, outs)
	if err != nil {
		log.Fatal(err)
	}
	if len(changes) == 0 {
		return
	}
	if err := apply.Write(root, changes); err != nil {
		log.Fatal(err)
	}
	for _, c := range changes {
		verb := "wrote"
		if c.Remove {
			verb = "removed"
		}
		fmt.Fprintf(os.Stderr, "gen: %s %s\n", verb, c.Path)
	}
	if *round >= maxRounds {
		log.Fatalf("still changing files after %d runs: two outputs disagree", *round)
	}
	again := exec.Command("go", "run", "-tags", "automiumgen", "./tools/gen", "-round", strconv.Itoa(*round+1))
	again.Dir, again.Stdout, again.Stderr = root, os.Stdout, os.Stderr
	if err := again.Run(); err != nil {
		os.Exit(1)
	}
}
