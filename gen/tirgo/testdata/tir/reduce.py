# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def max_red(A: T.Buffer((T.int64(3), T.int64(7)), "float32"), A_red: T.Buffer((T.int64(3),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for ax0, k1 in T.grid(T.int64(3), T.int64(7)):
            with T.block("A_red"):
                v_ax0, v_k1 = T.axis.remap("SR", [ax0, k1])
                T.reads(A[v_ax0, v_k1])
                T.writes(A_red[v_ax0])
                with T.init():
                    A_red[v_ax0] = T.float32(-3.4028234663852886e+38)
                A_red[v_ax0] = T.max(A_red[v_ax0], A[v_ax0, v_k1])

    @T.prim_func(private=True)
    def int_sum(A: T.Buffer((T.int64(5), T.int64(6)), "int32"), S: T.Buffer((T.int64(6),), "int64")):
        for k, ax0 in T.grid(T.int64(5), T.int64(6)):
            with T.block("S"):
                vk, v0 = T.axis.remap("RS", [k, ax0])
                with T.init():
                    S[v0] = T.int64(0)
                S[v0] = S[v0] + T.Cast("int64", A[vk, v0]) * T.int64(3)

    @T.prim_func(private=True)
    def red_offset(A: T.Buffer((T.int64(4), T.int64(9)), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i, k in T.grid(T.int64(4), T.int64(6)):
            with T.block("B"):
                vi = T.axis.spatial(T.int64(4), i)
                vk = T.axis.reduce((T.int64(2), T.int64(8)), k + T.int64(2))
                with T.init():
                    B[vi] = T.float32(1)
                B[vi] = B[vi] * A[vi, vk]

    @T.prim_func(private=True)
    def matmul_sym(var_A: T.handle, var_B: T.handle, var_C: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(5)))
        B = T.match_buffer(var_B, (T.int64(5), T.int64(3)))
        C = T.match_buffer(var_C, (n, T.int64(3)))
        for i, j, k in T.grid(n, T.int64(3), T.int64(5)):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func(private=True)
    def pool(A: T.Buffer((T.int64(1), T.int64(2), T.int64(6), T.int64(6)), "float32"), P: T.Buffer((T.int64(1), T.int64(2), T.int64(3), T.int64(3)), "float32")):
        for ax0, ax1, ax2, ax3, rv0, rv1 in T.grid(T.int64(1), T.int64(2), T.int64(3), T.int64(3), T.int64(2), T.int64(2)):
            with T.block("pool_max"):
                v0, v1, v2, v3, vr0, vr1 = T.axis.remap("SSSSRR", [ax0, ax1, ax2, ax3, rv0, rv1])
                with T.init():
                    P[v0, v1, v2, v3] = T.float32(-3.4028234663852886e+38)
                P[v0, v1, v2, v3] = T.max(P[v0, v1, v2, v3], A[v0, v1, v2 * T.int64(2) + vr0, v3 * T.int64(2) + vr1])

    @T.prim_func(private=True)
    def layer_norm(A: T.Buffer((T.int64(3), T.int64(16)), "float32"), gamma: T.Buffer((T.int64(16),), "float32"), O: T.Buffer((T.int64(3), T.int64(16)), "float32")):
        red = T.alloc_buffer((T.int64(3),))
        sq = T.alloc_buffer((T.int64(3),))
        for ax0, k in T.grid(T.int64(3), T.int64(16)):
            with T.block("red"):
                v0, vk = T.axis.remap("SR", [ax0, k])
                with T.init():
                    red[v0] = T.float32(0)
                    sq[v0] = T.float32(0)
                red[v0] = red[v0] + A[v0, vk]
                sq[v0] = sq[v0] + A[v0, vk] * A[v0, vk]
        for ax0, ax1 in T.grid(T.int64(3), T.int64(16)):
            with T.block("norm"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                O[v0, v1] = (A[v0, v1] - red[v0] * T.float32(0.0625)) * T.rsqrt(sq[v0] * T.float32(0.0625) - red[v0] * T.float32(0.0625) * (red[v0] * T.float32(0.0625)) + T.float32(1.0000000000000001e-05)) * gamma[v1]

    @T.prim_func(private=True)
    def softmax(A: T.Buffer((T.int64(4), T.int64(10)), "float32"), T_softmax_norm: T.Buffer((T.int64(4), T.int64(10)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        T_softmax_maxelem = T.alloc_buffer((T.int64(4),))
        T_softmax_exp = T.alloc_buffer((T.int64(4), T.int64(10)))
        T_softmax_expsum = T.alloc_buffer((T.int64(4),))
        for i0, k in T.grid(T.int64(4), T.int64(10)):
            with T.block("T_softmax_maxelem"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                with T.init():
                    T_softmax_maxelem[v_i0] = T.float32(-3.4028234663852886e+38)
                T_softmax_maxelem[v_i0] = T.max(T_softmax_maxelem[v_i0], A[v_i0, v_k])
        for i0, i1 in T.grid(T.int64(4), T.int64(10)):
            with T.block("T_softmax_exp"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T_softmax_exp[v_i0, v_i1] = T.exp(A[v_i0, v_i1] - T_softmax_maxelem[v_i0])
        for i0, k in T.grid(T.int64(4), T.int64(10)):
            with T.block("T_softmax_expsum"):
                v_i0, v_k = T.axis.remap("SR", [i0, k])
                with T.init():
                    T_softmax_expsum[v_i0] = T.float32(0)
                T_softmax_expsum[v_i0] = T_softmax_expsum[v_i0] + T_softmax_exp[v_i0, v_k]
        for i0, i1 in T.grid(T.int64(4), T.int64(10)):
            with T.block("T_softmax_norm"):
                v_i0, v_i1 = T.axis.remap("SS", [i0, i1])
                T.block_attr({"axis": 1})
                T_softmax_norm[v_i0, v_i1] = T_softmax_exp[v_i0, v_i1] / T_softmax_expsum[v_i0]

    @T.prim_func(private=True)
    def sum_rsr(A: T.Buffer((T.int64(3), T.int64(4), T.int64(5)), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for k1, j, k2 in T.grid(T.int64(3), T.int64(4), T.int64(5)):
            with T.block("B"):
                vk1, vj, vk2 = T.axis.remap("RSR", [k1, j, k2])
                with T.init():
                    B[vj] = T.float32(0.5)
                B[vj] = B[vj] + A[vk1, vj, vk2] * T.float32(1.5)

    @T.prim_func(private=True)
    def sum_sym(var_A: T.handle, var_B: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (T.int64(4), n), "float16")
        B = T.match_buffer(var_B, (T.int64(4),), "float16")
        for i, k in T.grid(T.int64(4), n):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float16(0)
                B[vi] = B[vi] + A[vi, vk]
