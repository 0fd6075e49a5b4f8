//go:build race

package asm

// raceEnabled reports a -race build, whose instrumented Go code may give
// a twin's two-NaN additions their operands in the other order (the NaN
// that survives differs), so bit comparisons against a twin take any NaN
// for any NaN there.
const raceEnabled = true
