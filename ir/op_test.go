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

func TestCanonicalizeForms(t *testing.T) {
	x := &Var{Name: "x"}
	ints := func(v ...int64) []any {
		out := make([]any, len(v))
		for i, n := range v {
			out[i] = n
		}
		return out
	}
	cases := []struct {
		name      string
		op        string
		args      []Expr
		attrs     Attrs
		wantArgs  int
		wantAttrs Attrs
		wantErr   string
	}{
		{"softmax positional", "relax.nn.softmax", []Expr{x, pv(1)}, nil, 1, Attrs{{"axis", int64(1)}}, ""},
		{"softmax keyword", "relax.nn.softmax", []Expr{x}, Attrs{{"axis", int64(1)}}, 1, Attrs{{"axis", int64(1)}}, ""},
		{"softmax default", "relax.nn.softmax", []Expr{x}, nil, 1, Attrs{{"axis", int64(-1)}}, ""},
		{"sum int axis", "relax.sum", []Expr{x, pv(1)}, nil, 1, Attrs{{"axis", ints(1)}, {"keepdims", false}}, ""},
		{"sum tuple axis", "relax.sum", []Expr{x, &Tuple{Fields: []Expr{pv(0), pv(1)}}, &PrimValue{Value: &IntImm{1, runtime.Bool}}}, nil, 1, Attrs{{"axis", ints(0, 1)}, {"keepdims", true}}, ""},
		{"conv2d complete", "relax.nn.conv2d", []Expr{x, x}, Attrs{{"strides", int64(2)}, {"padding", ints(1, 2)}}, 2,
			Attrs{{"strides", ints(2, 2)}, {"padding", ints(1, 2, 1, 2)}, {"dilation", ints(1, 1)}, {"groups", int64(1)},
				{"data_layout", "NCHW"}, {"kernel_layout", "OIHW"}, {"out_layout", "NCHW"}, {"out_dtype", runtime.Void}}, ""},
		{"conv2d out_dtype None", "relax.nn.conv2d", []Expr{x, x}, Attrs{{"out_dtype", nil}, {"out_layout", nil}}, 2,
			Attrs{{"strides", ints(1, 1)}, {"padding", ints(0, 0, 0, 0)}, {"dilation", ints(1, 1)}, {"groups", int64(1)},
				{"data_layout", "NCHW"}, {"kernel_layout", "OIHW"}, {"out_layout", "NCHW"}, {"out_dtype", runtime.Void}}, ""},
		{"pad python order", "relax.nn.pad", []Expr{x, &Tuple{Fields: []Expr{pv(0), pv(1)}}, &StringImm{Value: "edge"}}, nil, 1,
			Attrs{{"pad_width", ints(0, 1)}, {"pad_value", 0.0}, {"pad_mode", "edge"}}, ""},
		{"take", "relax.take", []Expr{x, x}, Attrs{{"axis", int64(0)}}, 2, Attrs{{"axis", int64(0)}, {"mode", "fast"}}, ""},
		{"tril old attr", "relax.tril", []Expr{x}, Attrs{{"k", int64(2)}}, 2, Attrs{}, ""},
		{"full keyword shape", "relax.full", nil, Attrs{{"shape", ints(2, 3)}, {"fill_value", x}, {"dtype", "float16"}}, 2, Attrs{{"dtype", runtime.Float16}}, ""},
		{"astype", "relax.astype", []Expr{x, &StringImm{Value: "int8"}}, nil, 1, Attrs{{"dtype", runtime.Int8}}, ""},
		{"strided_slice no strides", "relax.strided_slice", []Expr{x}, Attrs{{"axes", ints(0)}, {"begin", ints(0)}, {"end", ints(2)}}, 4, Attrs{{"assume_inbound", false}}, ""},
		{"missing arg", "relax.add", []Expr{x}, nil, 0, nil, `relax.add: missing argument "x2"`},
		{"too many", "relax.add", []Expr{x, x, x}, nil, 0, nil, "relax.add: too many arguments"},
		{"unexpected keyword", "relax.nn.relu", []Expr{x}, Attrs{{"alpha", 0.1}}, 0, nil, `relax.nn.relu: unexpected keyword argument "alpha"`},
		{"twice", "relax.nn.softmax", []Expr{x, pv(0)}, Attrs{{"axis", int64(1)}}, 0, nil, `argument "axis" given twice`},
		{"wrong attr type", "relax.nn.softmax", []Expr{x}, Attrs{{"axis", "last"}}, 0, nil, `relax.nn.softmax: attribute "axis": want int, got string "last"`},
		{"bad dtype", "relax.astype", []Expr{x}, Attrs{{"dtype", "float7x"}}, 0, nil, `relax.astype: attribute "dtype"`},
		{"bad padding", "relax.nn.conv2d", []Expr{x, x}, Attrs{{"padding", ints(1, 2, 3)}}, 0, nil, "padding must have 1, 2 or 4 values"},
		{"var as attr", "relax.nn.softmax", []Expr{x, x}, nil, 0, nil, "expected a literal, got variable x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &Call{Callee: &Op{Name: tc.op}, Args: tc.args, Attrs: tc.attrs}
			err := CanonicalizeCall(c)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Args) != tc.wantArgs {
				t.Fatalf("args %d, want %d: %#v", len(c.Args), tc.wantArgs, c.Args)
			}
			if len(tc.wantAttrs) == 0 && len(c.Attrs) == 0 {
				return
			}
			if !reflect.DeepEqual(c.Attrs, tc.wantAttrs) {
				t.Fatalf("attrs %#v\nwant %#v", c.Attrs, tc.wantAttrs)
			}
			// Idempotent.
			before := append(Attrs{}, c.Attrs...)
			nargs := len(c.Args)
			if err := CanonicalizeCall(c); err != nil || !reflect.DeepEqual(c.Attrs, before) || len(c.Args) != nargs {
				t.Fatalf("second canonicalization changed the call: %v %#v", err, c.Attrs)
			}
		})
	}
}

func TestCanonicalizeInfra(t *testing.T) {
	x := &Var{Name: "x"}
	// call_pure_packed: the string callee becomes an ExternFunc, sinfo_args move out.
	c := &Call{Callee: &Op{Name: "relax.call_pure_packed"}, Args: []Expr{&StringImm{Value: "f"}, x, x},
		Attrs: Attrs{{"sinfo_args", []any{tsi("float32", 2)}}}}
	if err := CanonicalizeCall(c); err != nil {
		t.Fatal(err)
	}
	if ef, ok := c.Args[0].(*ExternFunc); !ok || ef.Symbol != "f" || len(c.Args) != 3 || len(c.SInfoArgs) != 1 || len(c.Attrs) != 0 {
		t.Fatalf("call_pure_packed: %#v", c)
	}
	// print: format keyword moves to the front; canonical form is stable.
	c = &Call{Callee: &Op{Name: "relax.print"}, Args: []Expr{x}, Attrs: Attrs{{"format", "v={}"}}}
	for i := 0; i < 2; i++ {
		if err := CanonicalizeCall(c); err != nil {
			t.Fatal(err)
		}
		if s, ok := c.Args[0].(*StringImm); !ok || s.Value != "v={}" || len(c.Args) != 2 {
			t.Fatalf("print round %d: %#v", i, c.Args)
		}
	}
	// call_tir with tir_vars keyword and a bare tensor arg.
	c = &Call{Callee: &Op{Name: "relax.call_tir"}, Args: []Expr{&GlobalVar{Name: "k"}, x},
		Attrs: Attrs{{"out_sinfo", tsi("float32", 2)}, {"tir_vars", &ShapeExpr{Values: dims(3)}}}}
	if err := CanonicalizeCall(c); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Args[1].(*Tuple); !ok || len(c.Args) != 3 {
		t.Fatalf("call_tir: %#v", c.Args)
	}
	// vm.alloc_storage with bare literals (current dialect).
	c = &Call{Callee: &Op{Name: "relax.vm.alloc_storage"}, Args: []Expr{&Tuple{Fields: []Expr{pv(64)}}, pv(0), &StringImm{Value: "uint8"}}}
	if err := CanonicalizeCall(c); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Args[0].(*ShapeExpr); !ok {
		t.Fatalf("size: %T", c.Args[0])
	}
	if d, ok := c.Args[2].(*DataTypeImm); !ok || d.Value != runtime.UInt8 {
		t.Fatalf("dtype: %#v", c.Args[2])
	}
	if s, ok := c.Args[3].(*StringImm); !ok || s.Value != "global" {
		t.Fatalf("scope: %#v", c.Args[3])
	}
	// Registry.
	if len(RegisteredOps()) < 150 {
		t.Errorf("only %d ops registered", len(RegisteredOps()))
	}
	if d, ok := LookupOp("relax.print"); !ok || d.Pure {
		t.Errorf("relax.print should be registered and impure")
	}
}
