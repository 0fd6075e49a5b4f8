# from tvm.script import ir as I
# from tvm.script import tirx as T

@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def reduce_rows(var_A: T.handle, var_B: T.handle, scale: T.float32):
        T.func_attr({"tirx.noalias": True})
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(16)))
        B = T.match_buffer(var_B, (n,), "float16")
        # with T.sblock("root"):
        acc = T.alloc_buffer((n,))
        for i, k in T.grid(n, T.int64(16)):
            with T.sblock("acc"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(acc[vi])
                with T.init():
                    acc[vi] = T.float32(0.0)
                acc[vi] = acc[vi] + T.exp(A[vi, vk] - T.max(A[vi, vk], T.float32(-1.5))) * scale
        for i in T.parallel(n):
            with T.sblock("out"):
                vi = T.axis.spatial(n, i)
                T.where(i < n)
                T.reads(acc[vi])
                T.writes(B[vi])
                B[vi] = T.Cast("float16", T.if_then_else(acc[vi] > T.float32(0.0), T.sqrt(acc[vi]), T.float32(0.0)))

    @T.prim_func
    def scalar_ops(A: T.Buffer((8,), "int32"), m: T.int32):
        for i in range(1, 8):
            x: T.int32 = A[i - 1] * 2 + m // 3
            if x % 2 == 0 and not i < 2:
                A[i] = T.min(x, T.truncdiv(m, 4))
            else:
                A[i] = T.Select(T.likely(i < 4), 0 - x, T.floormod(x, 5))
        for v in T.vectorized(4):
            A[v] = A[v + 4]
        T.evaluate(0)
