//go:build noasm || !amd64

package asm

// install selects the pure-Go twins: there is no assembly in this build.
func install(l Level) { level = LevelGo; resetKernels() }

func detect() Level { return LevelGo }

func init() { install(detect()) }
