package kernels

import (
	"fmt"

	"github.com/relaxgo/relaxgo/runtime"
)

// View fills out with the bytes of data starting offset bytes in (Relax
// memory.view). relaxgo's kernels write preallocated outputs, so the view is
// a copy of the viewed bytes, not an alias: writes through it do not reach
// data (Relax values are immutable outside in-place calls, so this is only
// observable through packed functions that mutate their arguments).
func View(out, data *runtime.Tensor, offset int64) error {
	const name = "memory.view"
	if out == nil || data == nil {
		return fmt.Errorf("%s: nil tensor", name)
	}
	ob, db := out.Bytes(), data.Bytes()
	if offset < 0 || offset+int64(len(ob)) > int64(len(db)) {
		return fmt.Errorf("%s: a view of %d bytes at offset %d exceeds the %d bytes of %s", name, len(ob), offset, len(db), data)
	}
	if !sameData(out, data) || offset != 0 {
		copy(ob, db[offset:])
	}
	return nil
}

func init() {
	register("memory.view", "data, shape (Shape or nil; the output's), dtype (DataType or nil; the output's), relative_byte_offset (int64 or nil), out (absent trailing arguments are omitted)",
		func(args []runtime.Value) (runtime.Value, error) {
			p := newArgs(Prefix+"memory.view", args)
			if !p.atLeast(2) || len(args) > 5 {
				p.fail("want 2 to 5 arguments, got %d", len(args))
				return nil, p.err
			}
			data, out := p.tensor(0), p.tensor(len(args)-1)
			var off int64
			if len(args) == 5 {
				off, _ = p.optInt(3)
			}
			if p.err != nil {
				return nil, p.err
			}
			return nil, wrapErr(View(out, data, off))
		})
}
