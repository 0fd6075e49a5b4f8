package main

// Compiled into the generated-code runner by the corpus test (relaxgo run --go):
// registers the packed functions the corpus cases call.

import "github.com/relaxgo/relaxgo/conformance"

func init() { conformance.RegisterPacked() }
