package asm

import (
	"strings"
	"testing"
)

func TestChooseLevel(t *testing.T) {
	for _, c := range []struct {
		env  string
		max  Level
		want Level
		msg  string
	}{
		{"", LevelAVX512, LevelAVX512, ""},
		{"avx2", LevelAVX512, LevelAVX2, ""},
		{"AVX512", LevelAVX512, LevelAVX512, ""},
		{"generic", LevelAVX2, LevelGo, ""},
		{"go", LevelAVX2, LevelGo, ""},
		{"avx512", LevelAVX2, LevelAVX2, "refused"},
		{"avx2", LevelGo, LevelGo, "refused"},
		{"sse9", LevelAVX2, LevelAVX2, "ignored"},
	} {
		got, msg := chooseLevel(c.env, c.max)
		if got != c.want || (c.msg == "") != (msg == "") || !strings.Contains(msg, c.msg) {
			t.Errorf("chooseLevel(%q, %s) = %s, %q; want %s, message containing %q", c.env, c.max, got, msg, c.want, c.msg)
		}
	}
}
