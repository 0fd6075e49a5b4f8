//go:build race

package main

// raceEnabled reports a -race build, where allocation counts are meaningless.
const raceEnabled = true
