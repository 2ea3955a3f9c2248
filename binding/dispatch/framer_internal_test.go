package dispatch

import (
	"math"
	"strings"
	"testing"
)

// TestFramerHugeBound: a MaxLineLength near math.MaxInt is a bound no
// line reaches, as a negative one is no bound: the framer still reads
// the stream. limit+2 overflowed to a negative buffer size, so fill
// returned without reading and line spun forever on one core.
func TestFramerHugeBound(t *testing.T) {
	for _, limit := range []int{math.MaxInt, math.MaxInt - 1, math.MaxInt - 2, -1, 1, 3} {
		f := &framer{r: strings.NewReader("{}\n"), limit: limit}
		f.fill()
		if f.end == 0 {
			t.Errorf("limit %d: fill read nothing of a waiting stream", limit)
		}
	}
}
