# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def cast_ops(A: T.Buffer((T.int64(4), T.int64(6)), "float32"), B: T.Buffer((T.int64(4), T.int64(6)), "int32"), C: T.Buffer((T.int64(4), T.int64(6)), "float64"), D: T.Buffer((T.int64(4), T.int64(6)), "int8")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j in T.grid(T.int64(4), T.int64(6)):
            with T.block("cast"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj], C[vi, vj], D[vi, vj])
                B[vi, vj] = T.Cast("int32", A[vi, vj] * T.float32(10))
                C[vi, vj] = T.Cast("float64", A[vi, vj]) * T.float64(0.1) + T.Cast("float64", B[vi, vj])
                D[vi, vj] = T.Cast("int8", B[vi, vj] * 7)

    @T.prim_func(private=True)
    def broadcast_add(A: T.Buffer((T.int64(4), T.int64(1), T.int64(3)), "float32"), B: T.Buffer((T.int64(5), T.int64(1)), "float32"), T_add: T.Buffer((T.int64(4), T.int64(5), T.int64(3)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for ax0, ax1, ax2 in T.grid(T.int64(4), T.int64(5), T.int64(3)):
            with T.block("T_add"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T.reads(A[v_ax0, T.int64(0), v_ax2], B[v_ax1, T.int64(0)])
                T.writes(T_add[v_ax0, v_ax1, v_ax2])
                T_add[v_ax0, v_ax1, v_ax2] = A[v_ax0, T.int64(0), v_ax2] + B[v_ax1, T.int64(0)]

    @T.prim_func(private=True)
    def transpose3(A: T.Buffer((T.int64(2), T.int64(3), T.int64(4)), "float32"), T_transpose: T.Buffer((T.int64(4), T.int64(2), T.int64(3)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for ax0, ax1, ax2 in T.grid(T.int64(4), T.int64(2), T.int64(3)):
            with T.block("T_transpose"):
                v_ax0, v_ax1, v_ax2 = T.axis.remap("SSS", [ax0, ax1, ax2])
                T_transpose[v_ax0, v_ax1, v_ax2] = A[v_ax1, v_ax2, v_ax0]

    @T.prim_func(private=True)
    def scalar_math(A: T.Buffer((T.int64(12),), "float32"), B: T.Buffer((T.int64(12),), "float32"), alpha: T.float32, k: T.int64):
        for i in range(T.int64(12)):
            with T.block("B"):
                vi = T.axis.spatial(T.int64(12), i)
                B[vi] = T.sqrt(T.fabs(A[vi])) * alpha + T.tanh(A[vi]) + T.erf(A[vi]) + T.pow(T.fabs(A[vi]), T.float32(1.5)) + T.Cast("float32", k) + T.floor(A[vi] * T.float32(3)) + T.round(A[vi] * T.float32(2.5)) + T.rsqrt(T.fabs(A[vi]) + T.float32(1)) + T.log(T.fabs(A[vi]) + T.float32(0.5)) + T.sigmoid(A[vi]) - T.exp(A[vi]) / T.ceil(T.fabs(A[vi]) + T.float32(1))

    @T.prim_func(private=True)
    def uint_ops(A: T.Buffer((T.int64(20),), "uint8"), B: T.Buffer((T.int64(20),), "uint32"), C: T.Buffer((T.int64(20),), "int16")):
        for i in range(T.int64(20)):
            with T.block("u"):
                vi = T.axis.spatial(T.int64(20), i)
                B[vi] = T.Cast("uint32", A[vi]) * T.uint32(30000000) + T.uint32(7) // (T.Cast("uint32", A[vi]) + T.uint32(1))
                C[vi] = T.Cast("int16", A[vi]) * T.int16(300) - T.max(T.Cast("int16", A[vi]), T.int16(100))

    @T.prim_func(private=True)
    def half_ops(A: T.Buffer((T.int64(16),), "float16"), B: T.Buffer((T.int64(16),), "float16"), M: T.Buffer((T.int64(16),), "bool"), C: T.Buffer((T.int64(16),), "float16"), D: T.Buffer((T.int64(16),), "bool"), E: T.Buffer((T.int64(16),), "float32")):
        for i in range(T.int64(16)):
            with T.block("h"):
                vi = T.axis.spatial(T.int64(16), i)
                C[vi] = T.Select(M[vi], A[vi] * B[vi] + T.float16(0.1), T.exp(A[vi]) - B[vi])
                D[vi] = A[vi] < B[vi] or not M[vi]
                E[vi] = T.Cast("float32", A[vi]) + T.Cast("float32", T.Cast("float16", E[vi])) + T.Cast("float32", M[vi])
