// Package templates holds the fixed text of generated model packages,
// embedded so the generator carries it.
package templates

import _ "embed"

// PackageDoc is the text/template of a generated package's doc comment. Its
// data has fields Package, Source, Functions ([]struct{Name, GoName, Signature string}).
//
//go:embed package_doc.tmpl
var PackageDoc string
