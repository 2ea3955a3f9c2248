// Package apply turns the module's declared outputs (package gen) into file
// changes: go generate ./... writes them (tools/gen) and the tests
// report them (internal/testsupport.Generated), through the same [Plan], so a
// test fails exactly when the generator would change a file.
package apply

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/automium/automium/internal/gen"
)

// A Change is what the generator would do to one file: write New over Old
// (Old is nil for a new file), or remove the file.
type Change struct {
	Path     string // slash-separated, relative to the module root
	Old, New []byte
	Remove   bool
}

// Plan computes the changes that bring the files under root to outs, sorted by
// path. It reads files and writes none. Two outputs that write one whole file
// are an error; blocks of one file apply in turn.
func Plan(root string, outs []gen.Output) ([]Change, error) {
	p := planner{root: root, old: map[string][]byte{}, cur: map[string][]byte{}, whole: map[string]bool{}}
	var prunes []string
	for _, o := range outs {
		var err error
		switch o.Kind {
		case gen.Whole:
			err = p.setWhole(o.Path, o.Data)
		case gen.GoSource:
			var src []byte
			if src, err = format.Source(o.Data); err != nil {
				err = fmt.Errorf("%s: generated Go does not parse: %w", o.Path, err)
				break
			}
			err = p.setWhole(o.Path, src)
		case gen.Block:
			err = p.splice(o)
		case gen.Prune:
			prunes = append(prunes, o.Path)
		default:
			err = fmt.Errorf("%s: unknown output kind %d", o.Path, o.Kind)
		}
		if err != nil {
			return nil, err
		}
	}
	var changes []Change
	for name, content := range p.cur {
		if old, ok := p.old[name]; !ok || !bytes.Equal(old, content) {
			changes = append(changes, Change{Path: name, Old: p.old[name], New: content})
		}
	}
	for _, glob := range prunes {
		matches, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(glob)))
		if err != nil {
			return nil, fmt.Errorf("prune %s: %w", glob, err)
		}
		for _, m := range matches {
			rel, err := filepath.Rel(root, m)
			if err != nil {
				return nil, err
			}
			rel = filepath.ToSlash(rel)
			if !p.whole[rel] {
				old, err := os.ReadFile(m)
				if err != nil {
					return nil, err
				}
				changes = append(changes, Change{Path: rel, Old: old, Remove: true})
			}
		}
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return changes, nil
}

// Write carries out changes under root.
func Write(root string, changes []Change) error {
	for _, c := range changes {
		name := filepath.Join(root, filepath.FromSlash(c.Path))
		if c.Remove {
			if err := os.Remove(name); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(name, c.New, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ModuleRoot returns the directory of the go.mod above the working directory,
// so that the generator and every package's tests resolve outputs alike.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

type planner struct {
	root  string
	old   map[string][]byte // what is on disk, for the files read so far
	cur   map[string][]byte // what the outputs make of them
	whole map[string]bool   // files some output writes whole
}

// current returns the content a file has after the outputs applied so far.
func (p *planner) current(name string) ([]byte, bool, error) {
	if c, ok := p.cur[name]; ok {
		return c, true, nil
	}
	data, err := os.ReadFile(filepath.Join(p.root, filepath.FromSlash(name)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	p.old[name] = data
	return data, true, nil
}

func (p *planner) setWhole(name string, data []byte) error {
	if p.whole[name] {
		return fmt.Errorf("%s: two outputs write this file", name)
	}
	if _, _, err := p.current(name); err != nil {
		return err
	}
	p.whole[name] = true
	p.cur[name] = data
	return nil
}

func (p *planner) splice(o gen.Output) error {
	data, ok, err := p.current(o.Path)
	if err != nil {
		return err
	}
	text := string(data)
	begin := strings.Index(text, o.Begin+"\n")
	end := strings.Index(text, o.End)
	if !ok || begin < 0 || end < begin {
		return fmt.Errorf("%s lacks the lines\n%s\n%s\naround its generated block; add them where the block belongs", o.Path, o.Begin, o.End)
	}
	start := begin + len(o.Begin) + 1
	p.cur[o.Path] = []byte(text[:start] + string(o.Data) + text[end:])
	return nil
}
