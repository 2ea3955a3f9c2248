//go:build race

package testsupport

// RaceEnabled tells tests that the race detector is on: it allocates on its
// own at random and slows some work past what a test should wait for.
const RaceEnabled = true
