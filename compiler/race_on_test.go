//go:build race

package compiler_test

// raceEnabled reports a -race build, where sync.Pool drops items at random
// and allocation counts are meaningless.
const raceEnabled = true
