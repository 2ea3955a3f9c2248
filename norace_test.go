//go:build !race

package automium_test

// raceEnabled tells allocation-counting tests that the race detector, which
// allocates on its own at random, is on.
const raceEnabled = false
