// Package gen declares the module's generated files: each package that owns
// some lists them as [Output] values from one unexported function, its tests
// hold the files on disk to that list (internal/testsupport.Generated), and
// go generate ./... writes them (tools/gen, through internal/gen/apply).
// Declaring an output is data only, so a package may import gen without taking
// on any of the code that formats, parses or writes files: that code is in
// internal/gen/apply, which only the generator and tests import.
//
// The generator reaches each package's list through [Register], which the
// packages call only from a file built with the automiumgen tag, so that none
// of the generation code is reachable from, and linked into, the server.
package gen

import (
	"io/fs"
	"slices"
	"strings"
	"sync"
)

// Kind says how an output's bytes become a file.
type Kind int

const (
	// Whole: Data is the file's entire content.
	Whole Kind = iota
	// GoSource: Data is Go source that becomes the file once gofmt'd.
	GoSource
	// Block: Data replaces what lies between the lines Begin and End of an
	// otherwise hand-written file, which must hold both markers.
	Block
	// Prune: every file matching the glob Path that no other output of the same
	// list writes is stale and is removed.
	Prune
)

// Output is one generated file, part of one, or a rule over several. Paths are
// slash-separated and relative to the module root.
type Output struct {
	Kind       Kind
	Path       string
	Data       []byte
	Begin, End string // the markers of a Block
}

// File is an output that is the whole file at path.
func File(path string, data []byte) Output { return Output{Kind: Whole, Path: path, Data: data} }

// GoFile is an output of Go source, written gofmt'd.
func GoFile(path string, src []byte) Output { return Output{Kind: GoSource, Path: path, Data: src} }

// BlockOf is the generated text between the marker lines begin and end of the
// hand-written file at path. The markers stay as they are.
func BlockOf(path, begin, end, text string) Output {
	return Output{Kind: Block, Path: path, Begin: begin, End: end, Data: []byte(text)}
}

// PruneGlob is the rule that files matching glob are generated, so that those
// no output writes any longer are removed.
func PruneGlob(glob string) Output { return Output{Kind: Prune, Path: glob} }

// BlockMarkers returns the marker lines of the block that name generates in a
// markdown file. Every generated block of the module's documents uses them, so
// a reader sees where to stop editing and which command writes the block.
func BlockMarkers(name string) (begin, end string) {
	return "<!-- BEGIN generated: " + name + "; go generate ./... writes this block, do not edit it -->",
		"<!-- END generated: " + name + " -->"
}

// A Source is one package's list of outputs. Outputs reads its inputs from
// module, the module's root directory, so that no package of the server names
// a file of its own.
type Source struct {
	Name    string
	Outputs func(module fs.FS) ([]Output, error)
}

var (
	mu      sync.Mutex
	sources []Source
)

// Register adds a package's list. Packages call it from an init function in a
// file built only with the automiumgen tag.
func Register(name string, outputs func(module fs.FS) ([]Output, error)) {
	mu.Lock()
	defer mu.Unlock()
	sources = append(sources, Source{Name: name, Outputs: outputs})
}

// Sources returns the registered lists, ordered by name so that a run reports
// in the same order whatever the order of package initialisation.
func Sources() []Source {
	mu.Lock()
	defer mu.Unlock()
	out := slices.Clone(sources)
	slices.SortFunc(out, func(a, b Source) int { return strings.Compare(a.Name, b.Name) })
	return out
}
