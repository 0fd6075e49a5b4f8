//go:build race

package kernels

// raceEnabled reports a -race build, where allocation counts are meaningless.
const raceEnabled = true
