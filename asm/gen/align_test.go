package main

import "testing"

func TestAlignLoops(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"backward jump aligns its target",
			"TEXT ·f(SB), NOSPLIT, $0-8\nloop:\n\tDECQ AX\n\tJNZ loop\n\tRET\n",
			"TEXT ·f(SB), NOSPLIT, $0-8\n\tPCALIGN $64\nloop:\n\tDECQ AX\n\tJNZ loop\n\tRET\n"},
		{"forward jump does not",
			"TEXT ·f(SB), NOSPLIT, $0-8\n\tJMP done\ndone:\n\tRET\n",
			"TEXT ·f(SB), NOSPLIT, $0-8\n\tJMP done\ndone:\n\tRET\n"},
		{"labels are per function",
			"TEXT ·f(SB), NOSPLIT, $0-8\nl:\n\tRET\nTEXT ·g(SB), NOSPLIT, $0-8\n\tJMP l\nl:\n\tRET\n",
			"TEXT ·f(SB), NOSPLIT, $0-8\nl:\n\tRET\nTEXT ·g(SB), NOSPLIT, $0-8\n\tJMP l\nl:\n\tRET\n"},
		{"a label right after a label stays",
			"TEXT ·f(SB), NOSPLIT, $0-8\na:\nb:\n\tDECQ AX\n\tJNZ b\n\tRET\n",
			"TEXT ·f(SB), NOSPLIT, $0-8\na:\nb:\n\tDECQ AX\n\tJNZ b\n\tRET\n"},
	} {
		if got := alignLoops(c.in); got != c.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}
