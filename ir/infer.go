package ir

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
)

// InferCtx is the context of struct-info inference: the module being
// normalized (for calls of module functions), when known.
type InferCtx struct {
	Module *Module
}

// InferCall infers the struct info of a canonical op call whose arguments
// already carry struct info.
func InferCall(c *Call, ctx *InferCtx) (StructInfo, error) {
	op, ok := c.Callee.(*Op)
	if !ok {
		return nil, fmt.Errorf("InferCall: callee is not an op")
	}
	def, ok := LookupOp(op.Name)
	if !ok {
		return nil, fmt.Errorf("unknown op %q", op.Name)
	}
	if def.Infer == nil {
		return &ObjectSInfo{}, nil
	}
	if ctx == nil {
		ctx = &InferCtx{}
	}
	for i, a := range c.Args {
		if a != nil && a.SInfo() == nil {
			return nil, fmt.Errorf("%s: argument %d has no struct info", def.Name, i)
		}
	}
	return def.Infer(c, ctx)
}

var _ = runtime.Void
