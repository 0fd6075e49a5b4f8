package ir

import (
	"reflect"
	"strings"
	"testing"

	"github.com/relaxgo/relaxgo/runtime"
)

func pv(v int64) *PrimValue { return &PrimValue{Value: Int64(v)} }

func TestCanonicalizeBasic(t *testing.T) {
	x := &Var{Name: "x"}
	c := &Call{Callee: &Op{Name: "relax.matmul"}, Args: []Expr{x, x}, Attrs: Attrs{{"out_dtype", "void"}}}
	if err := CanonicalizeCall(c); err != nil {
		t.Fatal(err)
	}
	if len(c.Args) != 2 || !reflect.DeepEqual(c.Attrs, Attrs{{"out_dtype", runtime.Void}}) {
		t.Fatalf("got %v %v", c.Args, c.Attrs)
	}
	c = &Call{Callee: &Op{Name: "relax.reshape"}, Args: []Expr{x, &Tuple{Fields: []Expr{pv(2), pv(3)}}}}
	if err := CanonicalizeCall(c); err != nil {
		t.Fatal(err)
	}
	if s, ok := c.Args[1].(*ShapeExpr); !ok || len(s.Values) != 2 {
		t.Fatalf("shape arg %T", c.Args[1])
	}
	c = &Call{Callee: &Op{Name: "relax.foo"}}
	if err := CanonicalizeCall(c); err == nil || !strings.Contains(err.Error(), `unknown op "relax.foo"`) {
		t.Fatalf("err %v", err)
	}
}
