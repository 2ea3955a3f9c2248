//go:build !race

package stdio

const raceEnabled = false
