package winname

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReserved(t *testing.T) {
	tests := map[string]bool{
		"CON": true, "con.html": true, "Aux.tar.gz": true, "nul ": true, "NUL .json": true, "com1.json": true, "LPT9": true,
		"COM\u00b9.txt": true, "clock$": true, "CONOUT$.x": true,
		"console.html": false, "com10.json": false, "report.html": false, "": false, ".con": false, "xcon": false, "lpt": false,
	}
	got := map[string]bool{}
	for name := range tests {
		got[name] = Reserved(name)
	}
	if diff := cmp.Diff(tests, got); diff != "" {
		t.Errorf("Reserved (-want +got):\n%s", diff)
	}
}
