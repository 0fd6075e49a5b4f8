package ir

// Buffer is a TIR buffer: a named, typed, shaped view of memory.
type Buffer struct {
	Name  string
	DType DataType
	Shape []PrimExpr
	// Strides are explicit strides (nil for compact row-major).
	Strides []PrimExpr
	// ElemOffset is the element offset (nil for 0).
	ElemOffset PrimExpr
	// Scope is the storage scope ("global" when empty).
	Scope string
	// Data is the handle variable backing the buffer.
	Data *PrimVar
}

// Range is [Min, Min+Extent).
type Range struct {
	Min, Extent PrimExpr
}

// BufferRegion is a region of a buffer, used in T.reads/T.writes.
type BufferRegion struct {
	Buffer *Buffer
	Region []Range
}

// Stmt is a TIR statement.
type Stmt interface{ stmtNode() }

// ForKind is a loop's kind.
type ForKind int

// Loop kinds.
const (
	ForSerial ForKind = iota
	ForParallel
	ForVectorized
	ForUnrolled
	ForThreadBinding
)

var forKindNames = [...]string{"serial", "parallel", "vectorized", "unroll", "thread_binding"}

// String is the TVMScript spelling (T.serial, T.parallel, ...).
func (k ForKind) String() string { return forKindNames[k] }

// For is a loop over Var in [Min, Min+Extent).
type For struct {
	Var         *PrimVar
	Min, Extent PrimExpr
	Kind        ForKind
	Body        Stmt
	// ThreadTag is the thread binding tag for ForThreadBinding.
	ThreadTag   string
	Annotations Attrs
	Loc         Span
}

// IterKind is a block iteration variable's kind.
type IterKind int

// Block iteration kinds (T.axis.spatial / reduce / scan / opaque).
const (
	IterSpatial IterKind = iota
	IterReduce
	IterScan
	IterOpaque
)

// IterVar is a block iteration variable with its domain and the value it is bound to.
type IterVar struct {
	Var     *PrimVar
	Dom     Range
	Kind    IterKind
	Binding PrimExpr
}

// Block is a TIR block (T.block in v0.23, T.sblock today) together with its
// realization (iteration bindings and predicate).
type Block struct {
	Name         string
	IterVars     []IterVar
	Predicate    PrimExpr // nil for true
	Reads        []BufferRegion
	Writes       []BufferRegion
	Init         Stmt // nil when absent
	AllocBuffers []*Buffer
	Body         Stmt
	Annotations  Attrs
	// Implicit marks the root block that TVMScript leaves implicit.
	Implicit bool
	Loc      Span
}

// BufferStore writes Value to Buffer at Indices.
type BufferStore struct {
	Buffer  *Buffer
	Value   PrimExpr
	Indices []PrimExpr
	Loc     Span
}

// IfThenElse is a conditional statement (Else may be nil).
type IfThenElse struct {
	Cond       PrimExpr
	Then, Else Stmt
	Loc        Span
}

// LetStmt binds Var to Value in Body.
type LetStmt struct {
	Var   *PrimVar
	Value PrimExpr
	Body  Stmt
	Loc   Span
}

// AttrStmt annotates Body with an attribute (T.attr(node, key, value), the
// rest of the enclosing body being Body), e.g. a "pragma_scope" hint; it
// does not change what Body computes.
type AttrStmt struct {
	Node  PrimExpr
	Key   string
	Value PrimExpr
	Body  Stmt
	Loc   Span
}

// Evaluate evaluates an expression for its effect (T.evaluate).
type Evaluate struct {
	Value PrimExpr
	Loc   Span
}

// SeqStmt runs statements in order.
type SeqStmt struct{ Stmts []Stmt }

// AllocBuffer allocates a buffer for the rest of the enclosing body (T.alloc_buffer outside blocks).
type AllocBuffer struct {
	Buffer *Buffer
	Body   Stmt
	Loc    Span
}

func (*For) stmtNode()         {}
func (*Block) stmtNode()       {}
func (*BufferStore) stmtNode() {}
func (*IfThenElse) stmtNode()  {}
func (*LetStmt) stmtNode()     {}
func (*AttrStmt) stmtNode()    {}
func (*Evaluate) stmtNode()    {}
func (*SeqStmt) stmtNode()     {}
func (*AllocBuffer) stmtNode() {}

// PrimFunc is a TIR function. Params are handles (for buffers, see BufferMap)
// or scalars.
type PrimFunc struct {
	Name   string
	Params []*PrimVar
	// BufferMap maps handle params to the buffers matched to them (T.Buffer
	// annotations and T.match_buffer).
	BufferMap map[*PrimVar]*Buffer
	Attrs     Attrs
	Body      Stmt
	Private   bool
	// STIR is @T.prim_func(s_tir=True) (v0.25+ schedulable TIR).
	STIR bool
	Loc  Span
}

// BufferParams lists the buffers of the handle params in parameter order
// (nil entries for scalar params).
func (f *PrimFunc) BufferParams() []*Buffer {
	out := make([]*Buffer, len(f.Params))
	for i, p := range f.Params {
		out[i] = f.BufferMap[p]
	}
	return out
}
