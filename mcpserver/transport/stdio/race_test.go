//go:build race

package stdio

// raceEnabled lets tests skip work that the race detector makes too slow to be
// worth it.
const raceEnabled = true
