module github.com/relaxgo/relaxgo/bench/openblas

go 1.26.8

require github.com/relaxgo/relaxgo v0.0.0

require (
	github.com/klauspost/cpuid/v2 v2.4.2 // indirect
	golang.org/x/sys v0.41.0 // indirect
)

replace github.com/relaxgo/relaxgo => ../..
