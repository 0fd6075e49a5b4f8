package runtime

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// alignment is the byte alignment of every storage allocation (TVM's kAllocAlignment).
const alignment = 64

// deviceCPU is DLPack's DLDeviceType of the host CPU (kDLCPU), the only
// device relaxgo runs on.
const (
	deviceCPU int32 = 1
)

// Device names where a tensor lives. relaxgo runs on the host CPU only.
type Device struct {
	Type int32
	ID   int32
}

// CPU is the host device.
var CPU = Device{Type: deviceCPU, ID: 0}

// String returns "cpu(0)" style names.
func (d Device) String() string {
	if d.Type == deviceCPU {
		return fmt.Sprintf("cpu(%d)", d.ID)
	}
	return fmt.Sprintf("device(%d, %d)", d.Type, d.ID)
}

// Storage is a block of 64-byte-aligned memory from which tensors are carved.
type Storage struct {
	data   []byte
	device Device
	owner  Allocator // the pooled allocator the storage returns to, if any
	// lease counts the times a pooled allocator handed the storage out;
	// views caches tensor headers made on it, reusable in later leases.
	lease  uint32
	pooled bool // handed out by owner and not yet freed
	// firstUsed is set once first is taken; tupleUsed while a tuple may
	// occupy tuple. (The flags sit together: a small result's storage is
	// 384 bytes, not 416; see newStorage.)
	firstUsed, tupleUsed bool
	// next is where cachedView starts looking: just past its last hit. A
	// program allocates its tensors on a storage in the same order every
	// call, so the header it wants is usually there, and the lookup is not
	// a scan of every header (an unrolled LSTM puts 65 on one
	// storage). It fits the padding after the flags (maxCachedViews is 256).
	next    uint8
	views   []*Tensor
	viewBuf [2]*Tensor // views' first backing array, saving allocations
	// first is the header of the storage's first tensor view, allocated
	// with the storage (one allocation fewer per tensor).
	first Tensor
	// tuple is room for a small tuple whose first element is a tensor on
	// the storage, made during the activation that allocated it
	// (VM.makeTuple): a call's result tuple then costs no allocation of
	// its own.
	tuple tupleBox[[storageTupleLen]Value]
}

// storageTupleLen is the most elements a tuple kept in a Storage has.
const storageTupleLen = 4

// maxCachedViews bounds the tensor headers a storage keeps for reuse. A
// real network's memory plan puts dozens of tensors on one storage
// (MobileNetV2: about 50); with 32 the cache turned over every call and
// each call allocated ~19 headers.
const maxCachedViews = 256

// Storage.next indexes views in a uint8.
var _ [256 - maxCachedViews]struct{}

// viewTensor is AllocTensor for the VM's alloc_tensor builtin: shape is an
// immutable Shape value (a constant or make_shape's result) and is not
// copied, and on pooled storage a tensor header made during an earlier lease
// is reused. That is safe because a pooled storage is only freed when no
// value reaching it survives the call that allocated it (see
// VM.releaseStorages), so its old views are dead.
func (s *Storage) viewTensor(offset int64, shape Shape, dt DataType) (*Tensor, error) {
	return s.cachedView(offset, shape, dt, false)
}

// cachedView is viewTensor; with own, a header it makes has a copy of shape
// (the caller's slice may change after the call).
func (s *Storage) cachedView(offset int64, shape Shape, dt DataType, own bool) (*Tensor, error) {
	if s.owner != nil {
		n := len(s.views)
		for i, k := int(s.next), 0; k < n; i, k = i+1, k+1 {
			if i >= n {
				i = 0
			}
			if v := s.views[i]; v.lease != s.lease && v.offset == offset && v.dtype == dt && Shape(v.shape).Equal(shape) {
				v.lease = s.lease
				s.next = uint8(i + 1) // wraps to 0 past the last of 256
				return v, nil
			}
		}
	}
	if own {
		shape = cloneShape(shape)
	}
	t, err := s.newView(offset, shape, dt)
	if err != nil || s.owner == nil {
		return t, err
	}
	t.lease = s.lease
	if s.views == nil {
		s.views = s.viewBuf[:0]
	}
	if len(s.views) == maxCachedViews {
		copy(s.views, s.views[1:])
		s.views = s.views[:maxCachedViews-1]
	}
	s.views = append(s.views, t)
	return t, nil
}

// newView makes a tensor header of shape (not copied) and dtype at byte
// offset within s, checking that it fits. The storage's first view uses the
// header allocated with the storage.
func (s *Storage) newView(offset int64, shape []int64, dt DataType) (*Tensor, error) {
	n, err := NumBytes(shape, dt)
	if err != nil {
		return nil, err
	}
	if offset < 0 || offset > int64(len(s.data)) || n > int64(len(s.data))-offset {
		return nil, fmt.Errorf("runtime: tensor of %d bytes at offset %d does not fit storage of %d bytes", n, offset, len(s.data))
	}
	var t *Tensor
	if !s.firstUsed {
		s.firstUsed = true
		t = &s.first
	} else {
		t = new(Tensor)
	}
	// Every field, one by one (TestNewViewSetsEveryField counts them): a
	// struct store goes through the collector's bulk barrier while it
	// marks, which in a loop of small calls is much of the time.
	t.lease = 0
	t.dtype, t.offset, t.device = dt, offset, s.device
	t.shape = shape
	t.data = s.data[offset : offset+n : offset+n]
	t.storage = s
	return t, nil
}

// maxAlloc bounds a single allocation so a corrupt size cannot exhaust memory
// silently (1 TiB; real allocation failures still surface from the Go runtime).
const maxAlloc = int64(1) << 40

// alignedBytes returns a zeroed byte slice of length n whose first byte is
// alignment-aligned.
func alignedBytes(n int64) []byte {
	if n == 0 {
		return []byte{}
	}
	buf := make([]byte, n+alignment)
	base := unsafe.Pointer(&buf[0])
	off := int(uintptr(alignedAt(base)) - uintptr(base))
	return buf[off : off+int(n) : off+int(n)]
}

// alignedAt returns the first address at or after p on an alignment
// boundary.
func alignedAt(p unsafe.Pointer) unsafe.Pointer {
	if r := uintptr(p) & (alignment - 1); r != 0 {
		return unsafe.Add(p, alignment-r)
	}
	return p
}

// newStorage returns a Storage holding n zeroed, aligned bytes. Up to a page
// (the sizes of most results: a row of logits, a label, a scalar), header
// and bytes are one allocation instead of two, so a small result tensor costs
// one allocation per call (its header lives in the storage, see
// Storage.first); the room for the bytes is n rounded up to a power of two.
// The classes are a switch of static calls: a table of the same functions
// indexed by bits.Len measured ~15 ns slower per call (add_self).
func newStorage(n int64) *Storage {
	switch {
	case n <= 0:
		return &Storage{data: alignedBytes(n)}
	case n > pageSize:
		return largeStorage(n)
	case n <= 64:
		if s := inlineStorageFit[[smallInlineBytes]byte](n); s != nil {
			return s
		}
		return inlineStorage[[64 + alignment]byte](n)
	case n <= 128:
		return inlineStorage[[128 + alignment]byte](n)
	case n <= 256:
		return inlineStorage[[256 + alignment]byte](n)
	case n <= 512:
		return inlineStorage[[512 + alignment]byte](n)
	case n <= 1024:
		return inlineStorage[[1024 + alignment]byte](n)
	case n <= 2048:
		return inlineStorage[[2048 + alignment]byte](n)
	default:
		return inlineStorage[[pageSize + alignment]byte](n)
	}
}

// smallInlineBytes is the byte array that makes a Storage and its bytes
// one 384-byte object (the 416-byte class otherwise): the allocator places
// objects of that class 64-byte aligned, so 64 bytes fit after the header's
// alignment slack (inlineStorageFit checks; TestNewStorageInline counts
// one allocation).
const smallInlineBytes = 384 - int(unsafe.Sizeof(Storage{}))

// inlineStorageFit is inlineStorage when the n bytes fit B at 64-byte
// alignment wherever the object landed, else nil.
func inlineStorageFit[B any](n int64) *Storage {
	o := new(struct {
		s Storage
		b B
	})
	p := alignedAt(unsafe.Pointer(&o.b))
	if uintptr(p)+uintptr(n) > uintptr(unsafe.Pointer(&o.b))+unsafe.Sizeof(o.b) {
		return nil
	}
	o.s.data = unsafe.Slice((*byte)(p), n)
	return &o.s
}

// inlineStorage allocates a Storage and, in the same object, an array B
// (a size class plus alignment slack) of which its n bytes are a 64-byte
// aligned part.
func inlineStorage[B any](n int64) *Storage {
	o := new(struct {
		s Storage
		b B
	})
	o.s.data = unsafe.Slice((*byte)(alignedAt(unsafe.Pointer(&o.b))), n)
	return &o.s
}

// largeStorage is newStorage over a page: the header and the bytes in one
// object too, of a type made for the size (reflect.StructOf: a Storage,
// then a byte array of n plus alignment slack rounded up to a page), so a
// large result costs one allocation a call as a small one does. The
// collector scans only the header (the type's pointers end there). Types
// are cached per length, at most maxStorageTypes of them (a model's sizes
// are few; past the cap, for shapes that keep changing, the bytes are a
// second allocation again).
func largeStorage(n int64) *Storage {
	l := (n + alignment + pageSize - 1) / pageSize * pageSize
	e, ok := storageTypes.Load(l)
	if !ok {
		if storageTypeCount.Load() >= maxStorageTypes || l != int64(int(l)) {
			return &Storage{data: alignedBytes(n)}
		}
		t := reflect.StructOf([]reflect.StructField{
			{Name: "S", Type: reflect.TypeFor[Storage]()},
			{Name: "B", Type: reflect.ArrayOf(int(l), reflect.TypeFor[byte]())},
		})
		var loaded bool
		e, loaded = storageTypes.LoadOrStore(l, storageType{t, t.Field(1).Offset})
		if !loaded {
			storageTypeCount.Add(1)
		}
	}
	st := e.(storageType)
	p := reflect.New(st.t).UnsafePointer()
	s := (*Storage)(p)
	s.data = unsafe.Slice((*byte)(alignedAt(unsafe.Add(p, st.bytes))), n)
	return s
}

// storageType is largeStorage's type for a length: a struct of a Storage
// and a byte array starting at offset bytes.
type storageType struct {
	t     reflect.Type
	bytes uintptr
}

var (
	storageTypes     sync.Map // byte array length -> storageType
	storageTypeCount atomic.Int64
)

// maxStorageTypes bounds the lengths largeStorage makes a type for.
const maxStorageTypes = 1024

// NewStorage allocates nbytes of zeroed, aligned storage on dev.
func NewStorage(nbytes int64, dev Device) (*Storage, error) {
	if nbytes < 0 || nbytes > maxAlloc {
		return nil, fmt.Errorf("runtime: storage size %d out of range", nbytes)
	}
	if err := checkAllocLimit(nbytes, func() string { return "a storage" }); err != nil {
		return nil, err
	}
	st := newStorage(nbytes)
	st.device = dev
	return st, nil
}

// Size is the storage's size in bytes.
func (s *Storage) Size() int64 { return int64(len(s.data)) }

// Bytes returns the whole storage.
func (s *Storage) Bytes() []byte { return s.data }

// Device is where the storage lives.
func (s *Storage) Device() Device { return s.device }

// AllocTensor makes a tensor view of shape and dtype at byte offset within s,
// checking that it fits.
func (s *Storage) AllocTensor(offset int64, shape []int64, dt DataType) (*Tensor, error) {
	return s.newView(offset, cloneShape(shape), dt)
}

// Tensor is an n-dimensional array: a dtype, a shape and a view of storage.
// Element data are stored densely in row-major order starting at the view.
type Tensor struct {
	lease   uint32 // the storage lease the tensor was made in (pooled storage)
	dtype   DataType
	shape   []int64
	data    []byte
	storage *Storage
	offset  int64
	device  Device
}

// NumElements is the product of shape, with overflow and negative-dimension checks.
func NumElements(shape []int64) (int64, error) {
	n := int64(1)
	for i, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("runtime: negative dimension %d at axis %d", d, i)
		}
		// The overflow check by a full 128-bit product, not a division
		// (tens of cycles an axis, on every tensor view a call makes).
		hi, lo := bits.Mul64(uint64(n), uint64(d))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, errors.New("runtime: tensor size overflows int64")
		}
		n = int64(lo)
	}
	return n, nil
}

// NumBytes is the byte size of a dense tensor of shape and dt.
func NumBytes(shape []int64, dt DataType) (int64, error) {
	n, err := NumElements(shape)
	if err != nil {
		return 0, err
	}
	eb := int64(dt.ElemBytes())
	if eb != 0 && n > maxAlloc/eb {
		return 0, fmt.Errorf("runtime: tensor of %d elements of %s is too large", n, dt)
	}
	return n * eb, nil
}

func cloneShape(s []int64) []int64 {
	out := make([]int64, len(s))
	copy(out, s)
	return out
}

// NewTensor allocates a zeroed tensor on the CPU.
func NewTensor(shape []int64, dt DataType) (*Tensor, error) {
	n, err := NumBytes(shape, dt)
	if err != nil {
		return nil, err
	}
	if err := checkAllocLimit(n, func() string { return fmt.Sprintf("a tensor of shape %s and dtype %s", Shape(shape), dt) }); err != nil {
		return nil, err
	}
	st := newStorage(n)
	st.device, st.firstUsed = CPU, true
	st.first = Tensor{dtype: dt, shape: cloneShape(shape), data: st.data, storage: st, device: CPU}
	return &st.first, nil
}

// MustNewTensor is NewTensor for shapes known to be valid (tests, generated
// code with static shapes); it panics on an invalid shape.
func MustNewTensor(shape []int64, dt DataType) *Tensor {
	t, err := NewTensor(shape, dt)
	if err != nil {
		panic(err)
	}
	return t
}

// DType is the element type.
func (t *Tensor) DType() DataType { return t.dtype }

// Shape is the tensor's shape. Callers must not modify it.
func (t *Tensor) Shape() []int64 { return t.shape }

// NDim is the number of dimensions.
func (t *Tensor) NDim() int { return len(t.shape) }

// NumElements is the number of elements.
func (t *Tensor) NumElements() int64 {
	n := int64(1)
	for _, d := range t.shape {
		n *= d
	}
	return n
}

// NBytes is the size of the tensor's data in bytes.
func (t *Tensor) NBytes() int64 { return int64(len(t.data)) }

// Bytes is the tensor's raw data (aliasing it).
func (t *Tensor) Bytes() []byte { return t.data }

// ByteOffset is the offset of the data within its storage.
func (t *Tensor) ByteOffset() int64 { return t.offset }

// Storage is the storage the tensor views.
func (t *Tensor) Storage() *Storage { return t.storage }

// Device is where the tensor lives.
func (t *Tensor) Device() Device { return t.device }

// String describes the tensor's type, e.g. "Tensor[(3, 4), float32]".
func (t *Tensor) String() string {
	return fmt.Sprintf("Tensor[%s, %s]", Shape(t.shape), t.dtype)
}

// View returns a zero-copy view of t with a new shape and the same number of bytes.
func (t *Tensor) View(shape []int64, dt DataType) (*Tensor, error) {
	v := new(Tensor)
	if err := t.viewInto(v, cloneShape(shape), dt); err != nil {
		return nil, err
	}
	return v, nil
}

// viewInto makes *v a view of t with shape (not copied) and dt, checking
// that the bytes match (View, and rtlink.ViewInto's header the caller owns).
func (t *Tensor) viewInto(v *Tensor, shape []int64, dt DataType) error {
	if err := t.viewable(shape, dt); err != nil {
		return err
	}
	*v = Tensor{dtype: dt, shape: shape, data: t.data, storage: t.storage, offset: t.offset, device: t.device}
	return nil
}

// viewable checks that t's bytes are a tensor of shape and dt.
func (t *Tensor) viewable(shape []int64, dt DataType) error {
	n, err := NumBytes(shape, dt)
	if err != nil {
		return err
	}
	if n != int64(len(t.data)) {
		return fmt.Errorf("runtime: cannot view %s as %s %s: byte sizes %d and %d differ", t, Shape(shape), dt, len(t.data), n)
	}
	return nil
}

// Reshape returns a zero-copy view of t with a new shape of the same element count.
func (t *Tensor) Reshape(shape []int64) (*Tensor, error) { return t.View(shape, t.dtype) }

// Clone returns a deep copy of t in fresh storage.
func (t *Tensor) Clone() *Tensor {
	c := MustNewTensor(t.shape, t.dtype)
	copy(c.data, t.data)
	return c
}

// CopyFrom copies src's data into t; shapes and dtypes must match.
func (t *Tensor) CopyFrom(src *Tensor) error {
	if t == nil || src == nil {
		return fmt.Errorf("runtime: CopyFrom: nil tensor")
	}
	if t.dtype != src.dtype || !Shape(t.shape).Equal(Shape(src.shape)) {
		return fmt.Errorf("runtime: copy from %s into %s", src, t)
	}
	copy(t.data, src.data)
	return nil
}

func viewAs[T any](b []byte) []T {
	if len(b) == 0 {
		return []T{}
	}
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
}

// Float32s is the data as []float32 (aliasing; dtype must be float32).
func (t *Tensor) Float32s() []float32 { t.mustBe(Float32); return viewAs[float32](t.data) }

// Float64s is the data as []float64 (aliasing; dtype must be float64).
func (t *Tensor) Float64s() []float64 { t.mustBe(Float64); return viewAs[float64](t.data) }

// Int8s is the data as []int8 (aliasing; dtype must be int8).
func (t *Tensor) Int8s() []int8 { t.mustBe(Int8); return viewAs[int8](t.data) }

// Int16s is the data as []int16 (aliasing; dtype must be int16).
func (t *Tensor) Int16s() []int16 { t.mustBe(Int16); return viewAs[int16](t.data) }

// Int32s is the data as []int32 (aliasing; dtype must be int32).
func (t *Tensor) Int32s() []int32 { t.mustBe(Int32); return viewAs[int32](t.data) }

// Int64s is the data as []int64 (aliasing; dtype must be int64).
func (t *Tensor) Int64s() []int64 { t.mustBe(Int64); return viewAs[int64](t.data) }

// Uint8s is the data as []uint8 (aliasing; dtype must be uint8).
func (t *Tensor) Uint8s() []uint8 { t.mustBe(UInt8); return t.data }

// Uint16s is the raw 16-bit data (aliasing; dtype must be a 16-bit type such as
// float16, bfloat16 or uint16).
func (t *Tensor) Uint16s() []uint16 {
	if t.dtype.Bits != 16 || t.dtype.Lanes != 1 {
		panic(fmt.Sprintf("runtime: %s viewed as 16-bit data", t))
	}
	return viewAs[uint16](t.data)
}

// Uint32s is the data as []uint32 (aliasing; dtype must be uint32).
func (t *Tensor) Uint32s() []uint32 { t.mustBe(UInt32); return viewAs[uint32](t.data) }

// Uint64s is the data as []uint64 (aliasing; dtype must be uint64).
func (t *Tensor) Uint64s() []uint64 { t.mustBe(UInt64); return viewAs[uint64](t.data) }

// Bools is the data as []bool (aliasing; dtype must be bool, one byte per element).
func (t *Tensor) Bools() []bool { t.mustBe(Bool); return viewAs[bool](t.data) }

// mustBe panics when t's dtype is not dt. Typed views are programming
// interfaces: callers check dtypes first (kernels do so once per call).
func (t *Tensor) mustBe(dt DataType) {
	if t.dtype != dt {
		panic(fmt.Sprintf("runtime: %s viewed as %s", t, dt))
	}
}

// Elem is the set of Go element types a tensor can be built from.
type Elem interface {
	~float32 | ~float64 | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~bool
}

// DataTypeOf is the tensor dtype of Go element type T, by its underlying
// type: a named type (type Celsius float64, type ID int32) maps like its
// underlying type; uint16 maps to uint16, not float16.
func DataTypeOf[T Elem]() DataType {
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Float32:
		return Float32
	case reflect.Float64:
		return Float64
	case reflect.Int8:
		return Int8
	case reflect.Int16:
		return Int16
	case reflect.Int32:
		return Int32
	case reflect.Int64:
		return Int64
	case reflect.Uint8:
		return UInt8
	case reflect.Uint16:
		return UInt16
	case reflect.Uint32:
		return UInt32
	case reflect.Uint64:
		return UInt64
	default: // reflect.Bool: Elem allows nothing else
		return Bool
	}
}

// fillsShape reports, as an error, n elements that do not fill shape
// exactly (or a shape whose element count overflows).
func fillsShape(n int, shape []int64) error {
	want, err := NumElements(shape)
	if err != nil {
		return err
	}
	if want != int64(n) {
		return fmt.Errorf("runtime: %d elements do not fill shape %s", n, Shape(shape))
	}
	return nil
}

// FromSlice makes a new tensor holding a copy of data with the given shape.
func FromSlice[T Elem](data []T, shape ...int64) (*Tensor, error) {
	dt := DataTypeOf[T]()
	if err := fillsShape(len(data), shape); err != nil {
		return nil, err
	}
	t, err := NewTensor(shape, dt)
	if err != nil {
		return nil, err
	}
	copy(viewAs[T](t.data), data)
	return t, nil
}

// Wrap makes a tensor that views data in place, without copying: writes
// through either are seen by the other. The dtype comes from T's underlying
// type (DataTypeOf). data must stay untouched while a model reads the
// tensor, and a model's outputs never alias it.
func Wrap[T Elem](data []T, shape ...int64) (*Tensor, error) {
	dt := DataTypeOf[T]()
	if err := fillsShape(len(data), shape); err != nil {
		return nil, err
	}
	var b []byte
	if len(data) > 0 {
		var z T
		b = unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), len(data)*int(unsafe.Sizeof(z)))
	} else {
		b = []byte{}
	}
	st := &Storage{data: b, device: CPU}
	return &Tensor{dtype: dt, shape: cloneShape(shape), data: b, storage: st, device: CPU}, nil
}

// ToSlice copies the tensor's data out as []T; T must match the dtype.
func ToSlice[T Elem](t *Tensor) ([]T, error) {
	if dt := DataTypeOf[T](); dt != t.dtype {
		return nil, fmt.Errorf("runtime: tensor has dtype %s, not %s", t.dtype, dt)
	}
	src := viewAs[T](t.data)
	out := make([]T, len(src))
	copy(out, src)
	return out, nil
}

// Scalar makes a 0-d tensor holding v.
func Scalar[T Elem](v T) *Tensor {
	t, err := FromSlice([]T{v})
	if err != nil {
		// Unreachable: one element always fills the 0-d shape.
		panic("runtime.Scalar: " + err.Error())
	}
	t.shape = []int64{}
	return t
}
