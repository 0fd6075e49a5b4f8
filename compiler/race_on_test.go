//go:build race

package compiler_test

// raceEnabled reports a -race build, where allocation counts are meaningless.
const raceEnabled = true
