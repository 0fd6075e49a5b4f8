// Package ir is relaxgo's in-memory form of an Apache TVM IRModule: Relax
// functions (expressions, bindings, dataflow blocks, struct info with
// symbolic shapes) and TIR PrimFuncs (buffers, loops, blocks, primitive
// expressions) in one Module.
//
// It also holds what every later stage relies on: the op registry with
// per-op type inference and attribute schemas (LookupOp, RegisteredOps),
// normalization (Normalize fills in struct info and canonical forms),
// well-formedness checking (WellFormed), structural equality, symbolic
// arithmetic on shapes, and visitors. ir/tvmscript parses and prints the
// text form; lower transforms modules; vmtir and gen turn them into
// programs.
package ir
