//go:build race

package freelist

// raceEnabled: the race detector is on (its sync.Pool drops objects put at
// random, so a processor does not keep its slot token).
const raceEnabled = true
