package asm

// WinogradInF32 is the input transform of the Winograd convolution F(2x2,
// 3x3) for n tiles of one channel. The padded channel is split into its
// four row and column parity planes (plane 2a+b at p[(2a+b)*psub:], rows wq
// apart); tile k's 4x4 patch d[i][j] is plane (i%2, j%2) at k + (i/2)*wq +
// j/2. It stores v[ξ*vstride+k] = (B^T d B)[r][s], ξ = 4r+s, computed as
// u_s[i] = d[i]·B (s=0: d0-d2, 1: d1+d2, 2: d2-d1, 3: d1-d3) and then
// v = B^T·u_s (r=0: u0-u2, 1: u1+u2, 2: u2-u1, 3: u1-u3), the same float32
// operations at every level. It panics when a slice is too short.
func WinogradInF32(v []float32, vstride int, p []float32, psub, wq, n int) {
	winoIn(2, v, vstride, p, psub, wq, n)
}

// WinogradOutF32 is the output transform of F(2x2, 3x3) for n tiles: from
// the 16 products m[ξ*mstride+k] it stores the tile's 2x2 outputs y[(2a+b)*
// ystride+k], computed as t_b[r] = (m[4r]+m[4r+1])+m[4r+2] (b=0),
// (m[4r+1]-m[4r+2])-m[4r+3] (b=1), then (t_b[0]+t_b[1])+t_b[2] (a=0),
// (t_b[1]-t_b[2])-t_b[3] (a=1), the same float32 operations at every level.
// It panics when a slice is too short.
func WinogradOutF32(y []float32, ystride int, m []float32, mstride, n int) {
	winoOut(2, y, ystride, m, mstride, n)
}

// winoInGo is WinogradInF32's twin on tiles [k0, k1).
func winoInGo(v []float32, vstride int, p []float32, psub, wq, k0, k1 int) {
	for k := k0; k < k1; k++ {
		var d [4][4]float32
		for i := 0; i < 4; i++ {
			for j := 0; j < 4; j++ {
				d[i][j] = p[((i%2)*2+j%2)*psub+k+(i/2)*wq+j/2]
			}
		}
		for s := 0; s < 4; s++ {
			var u [4]float32
			for i := 0; i < 4; i++ {
				switch s {
				case 0:
					u[i] = d[i][0] - d[i][2]
				case 1:
					u[i] = d[i][1] + d[i][2]
				case 2:
					u[i] = d[i][2] - d[i][1]
				default:
					u[i] = d[i][1] - d[i][3]
				}
			}
			v[s*vstride+k] = u[0] - u[2]
			v[(4+s)*vstride+k] = u[1] + u[2]
			v[(8+s)*vstride+k] = u[2] - u[1]
			v[(12+s)*vstride+k] = u[1] - u[3]
		}
	}
}

// winoOutGo is WinogradOutF32's twin on tiles [k0, k1).
func winoOutGo(y []float32, ystride int, m []float32, mstride, k0, k1 int) {
	for k := k0; k < k1; k++ {
		var t [2][4]float32
		for r := 0; r < 4; r++ {
			m0, m1, m2, m3 := m[(4*r)*mstride+k], m[(4*r+1)*mstride+k], m[(4*r+2)*mstride+k], m[(4*r+3)*mstride+k]
			t[0][r] = (m0 + m1) + m2
			t[1][r] = (m1 - m2) - m3
		}
		for b := 0; b < 2; b++ {
			y[b*ystride+k] = (t[b][0] + t[b][1]) + t[b][2]
			y[(2+b)*ystride+k] = (t[b][1] - t[b][2]) - t[b][3]
		}
	}
}

// WinogradIn6F32 is the input transform of the Winograd convolution F(4x4,
// 3x3) for n tiles of one channel. The padded channel is split into its
// sixteen row and column phase planes for stride 4 (plane 4a+b at
// p[(4a+b)*psub:], rows wq apart); tile k's 6x6 patch d[i][j] is plane
// (i%4, j%4) at k + (i/4)*wq + j/4. It stores v[ξ*vstride+k] = (B^T d
// B)[r][s], ξ = 6r+s, computed as u_s[i] = winoIn6Row(d[i])[s] and then
// v[6r+s] = winoIn6Row(u_s)[r], the same float32 operations at every
// level. It panics when a slice is too short.
func WinogradIn6F32(v []float32, vstride int, p []float32, psub, wq, n int) {
	winoIn(4, v, vstride, p, psub, wq, n)
}

// WinogradOut6F32 is the output transform of F(4x4, 3x3) for n tiles: from
// the 36 products m[ξ*mstride+k] it stores the tile's 4x4 outputs
// y[(4a+b)*ystride+k] = winoOut6Row(t_b)[a], t_b[r] = winoOut6Row(m[6r..6r+5])[b],
// the same float32 operations at every level. It panics when a slice is
// too short.
func WinogradOut6F32(y []float32, ystride int, m []float32, mstride, n int) {
	winoOut(4, y, ystride, m, mstride, n)
}

// winoIn6Row is B^T·d for F(4x4, 3x3): (4d0-5d2)+d4, (d3+d4)-4(d1+d2),
// (d4-d3)+4(d1-d2), (d4-d2)+2(d3-d1), (d4-d2)-2(d3-d1), (4d1-5d3)+d5, each
// product rounded apart (the conversions keep Go from fusing them).
func winoIn6Row(d [6]float32) [6]float32 {
	return [6]float32{
		(float32(d[0]*4) - float32(d[2]*5)) + d[4],
		(d[3] + d[4]) - float32((d[1]+d[2])*4),
		(d[4] - d[3]) + float32((d[1]-d[2])*4),
		(d[4] - d[2]) + float32((d[3]-d[1])*2),
		(d[4] - d[2]) - float32((d[3]-d[1])*2),
		(float32(d[1]*4) - float32(d[3]*5)) + d[5],
	}
}

// winoOut6Row is A^T·m for F(4x4, 3x3): (m0+(m1+m2))+(m3+m4),
// (m1-m2)+2(m3-m4), (m1+m2)+4(m3+m4), ((m1-m2)+8(m3-m4))+m5.
func winoOut6Row(m [6]float32) [4]float32 {
	return [4]float32{
		(m[0] + (m[1] + m[2])) + (m[3] + m[4]),
		(m[1] - m[2]) + float32((m[3]-m[4])*2),
		(m[1] + m[2]) + float32((m[3]+m[4])*4),
		((m[1] - m[2]) + float32((m[3]-m[4])*8)) + m[5],
	}
}

// wino6InGo is WinogradIn6F32's twin on tiles [k0, k1).
func wino6InGo(v []float32, vstride int, p []float32, psub, wq, k0, k1 int) {
	for k := k0; k < k1; k++ {
		var u [6][6]float32 // u[s][i]
		for i := 0; i < 6; i++ {
			var d [6]float32
			for j := 0; j < 6; j++ {
				d[j] = p[((i%4)*4+j%4)*psub+k+(i/4)*wq+j/4]
			}
			for s, x := range winoIn6Row(d) {
				u[s][i] = x
			}
		}
		for s := 0; s < 6; s++ {
			for r, x := range winoIn6Row(u[s]) {
				v[(6*r+s)*vstride+k] = x
			}
		}
	}
}

// wino6OutGo is WinogradOut6F32's twin on tiles [k0, k1).
func wino6OutGo(y []float32, ystride int, m []float32, mstride, k0, k1 int) {
	for k := k0; k < k1; k++ {
		var t [4][6]float32 // t[b][r]
		for r := 0; r < 6; r++ {
			var row [6]float32
			for j := 0; j < 6; j++ {
				row[j] = m[(6*r+j)*mstride+k]
			}
			for b, x := range winoOut6Row(row) {
				t[b][r] = x
			}
		}
		for b := 0; b < 4; b++ {
			for a, x := range winoOut6Row(t[b]) {
				y[(4*a+b)*ystride+k] = x
			}
		}
	}
}

// winoIn is WinogradInF32 (t = 2) and WinogradIn6F32 (t = 4): the checks,
// the level's kernel on whole vectors of tiles, the twin on the rest. The
// kernels are called directly, not through function values, through which
// v and p would escape (and callers' stack buffers go to the heap).
func winoIn(t int, v []float32, vstride int, p []float32, psub, wq, n int) {
	if n <= 0 {
		return
	}
	name, xis, planes := "WinogradIn", 16, 4
	if t == 4 {
		name, xis, planes = "WinogradIn6", 36, 16
	}
	if need := (xis-1)*vstride + n; len(v) < need || vstride < n {
		shortInput(name, "v", len(v), need)
	}
	if need := (planes-1)*psub + wq + 1 + n; len(p) < need || psub < 0 || wq < 0 {
		shortInput(name, "p", len(p), need)
	}
	k := 0
	if level != LevelGo && n >= vecWidth {
		k = n - n%vecWidth
		if t == 4 {
			asmWino6In(&v[0], vstride, &p[0], psub, wq, k)
		} else {
			asmWinoIn(&v[0], vstride, &p[0], psub, wq, k)
		}
	}
	if t == 4 {
		wino6InGo(v, vstride, p, psub, wq, k, n)
	} else {
		winoInGo(v, vstride, p, psub, wq, k, n)
	}
}

// winoOut is WinogradOutF32 (t = 2) and WinogradOut6F32 (t = 4).
func winoOut(t int, y []float32, ystride int, m []float32, mstride, n int) {
	if n <= 0 {
		return
	}
	name, xis := "WinogradOut", 16
	if t == 4 {
		name, xis = "WinogradOut6", 36
	}
	if need := (t*t-1)*ystride + n; len(y) < need || ystride < n {
		shortInput(name, "y", len(y), need)
	}
	if need := (xis-1)*mstride + n; len(m) < need || mstride < n {
		shortInput(name, "m", len(m), need)
	}
	k := 0
	if level != LevelGo && n >= vecWidth {
		k = n - n%vecWidth
		if t == 4 {
			asmWino6Out(&y[0], ystride, &m[0], mstride, k)
		} else {
			asmWinoOut(&y[0], ystride, &m[0], mstride, k)
		}
	}
	if t == 4 {
		wino6OutGo(y, ystride, m, mstride, k, n)
	} else {
		winoOutGo(y, ystride, m, mstride, k, n)
	}
}
