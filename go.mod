module github.com/relaxgo/relaxgo

go 1.24.0

require (
	github.com/dave/jennifer v1.7.1
	github.com/klauspost/cpuid/v2 v2.4.2
)

require (
	golang.org/x/sys v0.41.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)
