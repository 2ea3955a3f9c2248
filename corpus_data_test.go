package automium

import (
	"os"
	"testing"

	"github.com/automium/automium/internal/testsupport"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestGenerated holds this package's generated files to what their sources
// give today (see generatedFiles): corpus_data.go to corpus/corpus.json,
// schemas/ to the struct tags and the corpus. go generate ./... rewrites them.
func TestGenerated(t *testing.T) {
	testsupport.Generated(t, generatedFiles)
}

// TestCorpusData holds corpusData, the corpus compiled in, to
// corpus/corpus.json, the file people edit, value for value: what
// TestGenerated checks as text, this checks as data.
func TestCorpusData(t *testing.T) {
	decoded, err := decodeCorpusJSON(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(decoded, corpusData, cmpopts.IgnoreUnexported(corpus{})); diff != "" {
		t.Errorf("corpusData differs from %s (-json +go); run go generate ./...:\n%s", corpusJSONFile, diff)
	}
}
