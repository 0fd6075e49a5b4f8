// Package tvmscript reads and writes Apache TVM's TVMScript, the Python-syntax
// text form of an IRModule that TVM's mod.script() prints, in both dialects TVM
// has used recently (v0.23 and earlier: "tir", T.block, out_sinfo; current:
// "tirx", T.sblock, s_tir=True, out_ty, ty_args, R.Any).
//
// Parse turns module text into an *ir.Module; Print writes a module back.
// Parsing never panics: malformed or unsupported input yields an *Error that
// names the position (file:line:col) and shows the source line with a caret.
package tvmscript
