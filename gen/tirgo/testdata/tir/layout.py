# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def conv2d(A: T.Buffer((T.int64(1), T.int64(2), T.int64(5), T.int64(5)), "float32"), W: T.Buffer((T.int64(3), T.int64(2), T.int64(3), T.int64(3)), "float32"), conv: T.Buffer((T.int64(1), T.int64(3), T.int64(5), T.int64(5)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        pad_temp = T.alloc_buffer((T.int64(1), T.int64(2), T.int64(7), T.int64(7)))
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(2), T.int64(7), T.int64(7)):
            with T.block("pad_temp"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(A[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)])
                T.writes(pad_temp[v_i0, v_i1, v_i2, v_i3])
                pad_temp[v_i0, v_i1, v_i2, v_i3] = T.if_then_else(T.int64(1) <= v_i2 and v_i2 < T.int64(6) and T.int64(1) <= v_i3 and v_i3 < T.int64(6), A[v_i0, v_i1, v_i2 - T.int64(1), v_i3 - T.int64(1)], T.float32(0))
        for nn, ff, yy, xx, rc, ry, rx in T.grid(T.int64(1), T.int64(3), T.int64(5), T.int64(5), T.int64(2), T.int64(3), T.int64(3)):
            with T.block("conv2d_nchw"):
                v_nn, v_ff, v_yy, v_xx, v_rc, v_ry, v_rx = T.axis.remap("SSSSRRR", [nn, ff, yy, xx, rc, ry, rx])
                T.reads(pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx], W[v_ff, v_rc, v_ry, v_rx])
                T.writes(conv[v_nn, v_ff, v_yy, v_xx])
                with T.init():
                    conv[v_nn, v_ff, v_yy, v_xx] = T.float32(0)
                conv[v_nn, v_ff, v_yy, v_xx] = conv[v_nn, v_ff, v_yy, v_xx] + pad_temp[v_nn, v_rc, v_yy + v_ry, v_xx + v_rx] * W[v_ff, v_rc, v_ry, v_rx]

    @T.prim_func(private=True)
    def concat(var_A: T.handle, var_B: T.handle, var_C: T.handle):
        m = T.int64()
        n = T.int64()
        A = T.match_buffer(var_A, (m, n))
        B = T.match_buffer(var_B, (m, n))
        C = T.match_buffer(var_C, (m, n * T.int64(2)))
        for i, j in T.grid(m, n * T.int64(2)):
            with T.block("T_concat"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.if_then_else(n <= vj, B[vi, vj - n], A[vi, vj])

    @T.prim_func(private=True)
    def concat_nested(A: T.Buffer((T.int64(3), T.int64(2)), "float32"), B: T.Buffer((T.int64(3), T.int64(3)), "float32"), C: T.Buffer((T.int64(3), T.int64(5)), "float32")):
        for i, j in T.grid(T.int64(3), T.int64(5)):
            with T.block("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.float32(2) * T.if_then_else(T.int64(2) <= vj, B[vi, vj - T.int64(2)], A[vi, vj])

    @T.prim_func(private=True)
    def where_split(A: T.Buffer((T.int64(10),), "float32"), B: T.Buffer((T.int64(10),), "float32")):
        for i_0, i_1 in T.grid(T.int64(3), T.int64(4)):
            with T.block("B"):
                vi = T.axis.spatial(T.int64(10), i_0 * T.int64(4) + i_1)
                T.where(i_0 * T.int64(4) + i_1 < T.int64(10))
                B[vi] = A[vi] * T.float32(2) + T.float32(1)

    @T.prim_func(private=True)
    def take(A: T.Buffer((T.int64(5), T.int64(4)), "float32"), I: T.Buffer((T.int64(3),), "int64"), O: T.Buffer((T.int64(3), T.int64(4)), "float32")):
        for i, j in T.grid(T.int64(3), T.int64(4)):
            with T.block("take"):
                vi, vj = T.axis.remap("SS", [i, j])
                O[vi, vj] = A[I[vi], vj]

    @T.prim_func(private=True)
    def strided_slice(A: T.Buffer((T.int64(10), T.int64(8)), "float32"), O: T.Buffer((T.int64(4), T.int64(3)), "float32")):
        for i in range(T.int64(2), T.int64(6)):
            for j in T.serial(T.int64(3)):
                with T.block("slice"):
                    vi = T.axis.spatial(T.int64(4), i - T.int64(2))
                    vj = T.axis.spatial(T.int64(3), j)
                    O[vi, vj] = A[vi * T.int64(2) + T.int64(1), T.int64(7) - vj * T.int64(2)]

    @T.prim_func(private=True)
    def reshape(A: T.Buffer((T.int64(6), T.int64(4)), "float32"), O: T.Buffer((T.int64(3), T.int64(8)), "float32")):
        for ax0, ax1 in T.grid(T.int64(3), T.int64(8)):
            with T.block("T_reshape"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                O[v0, v1] = A[(v0 * T.int64(8) + v1) // T.int64(4) % T.int64(6), (v0 * T.int64(8) + v1) % T.int64(4)]

    @T.prim_func(private=True)
    def reshape_sym(var_A: T.handle, var_O: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(6)))
        O = T.match_buffer(var_O, (n * T.int64(2), T.int64(3)))
        for ax0, ax1 in T.grid(n * T.int64(2), T.int64(3)):
            with T.block("T_reshape"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                O[v0, v1] = A[(v0 * T.int64(3) + v1) // T.int64(6), (v0 * T.int64(3) + v1) % T.int64(6)]

    @T.prim_func(private=True)
    def let_if(A: T.Buffer((8, 6), "int32"), B: T.Buffer((T.int64(8), T.int64(6)), "int64"), C: T.Buffer((48,), "float32")):
        for i in range(8):
            for j in range(6):
                x: T.int32 = A[i, j] * 3 - 7
                if x % 4 == 1:
                    B[T.Cast("int64", i), T.Cast("int64", j)] = T.Cast("int64", T.floordiv(x, 3))
                else:
                    B[T.Cast("int64", i), T.Cast("int64", j)] = T.Cast("int64", T.truncdiv(x, 3)) + T.Cast("int64", T.floormod(x, -5))
                C[i * 6 + j] = T.Cast("float32", T.truncmod(x, 5)) + T.Cast("float32", x // 4)

    @T.prim_func(private=True)
    def par_add(var_A: T.handle, var_B: T.handle, var_C: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(64)))
        B = T.match_buffer(var_B, (n, T.int64(64)))
        C = T.match_buffer(var_C, (n, T.int64(64)))
        for i in T.parallel(n):
            for j in T.vectorized(T.int64(64)):
                with T.block("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = A[vi, vj] * B[vi, vj] + T.sigmoid(A[vi, vj])

    @T.prim_func(private=True)
    def par_rowsum(A: T.Buffer((T.int64(64), T.int64(300)), "float32"), B: T.Buffer((T.int64(64),), "float32")):
        for i in T.parallel(T.int64(64)):
            with T.block("outer"):
                vi = T.axis.spatial(T.int64(64), i)
                acc = T.alloc_buffer((T.int64(1),), scope="local")
                acc[T.int64(0)] = T.float32(0)
                for k in T.unroll(T.int64(300)):
                    acc[T.int64(0)] = acc[T.int64(0)] + A[vi, k]
                B[vi] = acc[T.int64(0)]

    @T.prim_func(private=True)
    def par_offset(A: T.Buffer((40,), "int32"), B: T.Buffer((40,), "int32"), s: T.int32):
        for i in T.parallel(3, 40):
            B[i] = A[i - 3] * s + T.min(A[i], s)
        for i in range(3):
            B[i] = T.max(A[i], -s)
