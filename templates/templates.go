// Package templates holds the fixed text of generated model packages,
// embedded so the generator carries it.
package templates

import _ "embed"

// PackageDoc is the text/template of a generated package's doc comment. Its
// data has fields Package, Source, Functions ([]struct{Name, GoName, Signature string}).
//
//go:embed package_doc.tmpl
var PackageDoc string

// Runtime is the fixed Go source of a generated package's model loading and
// pooling; it is a text/template whose data has fields Package, Header (the
// generated-file header) and GenVersion (the generator's rtimpl.GenVersion).
//
//go:embed runtime.go.tmpl
var Runtime string
