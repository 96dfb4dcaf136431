//go:build !purego

#include "textflag.h"

// func layerSumsAVX(f *float64, sb, sc int, tab *[10][4]float64, sums *[4][4]float64)
//
// Per layer c (f + c·sc), the four rows b (f + c·sc + b·sb, eight values each: φ and V of four
// nodes interleaved) transposed to one row a lane, first their nodes 0–1, then 2–3, so that
// each row's px, dpx and vx are (((a0 + a1) + a2) + a3) in its lane with the x weights of tab
// (rows 0–7, broadcast); then the products with w1 (tab row 8) and w1' (row 9) summed over the
// lanes in order from +0 into sums[c] = (pz, vz, gxz, gyz).
TEXT ·layerSumsAVX(SB), NOSPLIT, $0-40
	MOVQ   f+0(FP), SI
	MOVQ   sb+8(FP), R8
	MOVQ   sc+16(FP), R9
	MOVQ   tab+24(FP), DX
	MOVQ   sums+32(FP), DI
	MOVQ   $4, CX
	VXORPD X15, X15, X15

	PCALIGN $32
layer:
	LEAQ       (SI)(R8*2), R10      // row 2
	// nodes 0–1 of the four rows: (φ0, V0, φ1, V1) per row
	VMOVUPD    (SI), Y0
	VMOVUPD    (SI)(R8*1), Y1
	VMOVUPD    (R10), Y2
	VMOVUPD    (R10)(R8*1), Y3
	VUNPCKLPD  Y1, Y0, Y4
	VUNPCKHPD  Y1, Y0, Y5
	VUNPCKLPD  Y3, Y2, Y6
	VUNPCKHPD  Y3, Y2, Y7
	VPERM2F128 $0x20, Y6, Y4, Y0    // φ0 of the rows
	VPERM2F128 $0x20, Y7, Y5, Y1    // V0
	VPERM2F128 $0x31, Y6, Y4, Y2    // φ1
	VPERM2F128 $0x31, Y7, Y5, Y3    // V1
	VMULPD     (DX), Y0, Y8         // px = w0 φ0
	VMULPD     32(DX), Y2, Y4
	VADDPD     Y4, Y8, Y8           //   + w1 φ1
	VMULPD     128(DX), Y0, Y9      // dpx = w0' φ0
	VMULPD     160(DX), Y2, Y4
	VADDPD     Y4, Y9, Y9
	VMULPD     (DX), Y1, Y10        // vx = w0 V0
	VMULPD     32(DX), Y3, Y4
	VADDPD     Y4, Y10, Y10
	// nodes 2–3
	VMOVUPD    32(SI), Y0
	VMOVUPD    32(SI)(R8*1), Y1
	VMOVUPD    32(R10), Y2
	VMOVUPD    32(R10)(R8*1), Y3
	VUNPCKLPD  Y1, Y0, Y4
	VUNPCKHPD  Y1, Y0, Y5
	VUNPCKLPD  Y3, Y2, Y6
	VUNPCKHPD  Y3, Y2, Y7
	VPERM2F128 $0x20, Y6, Y4, Y0    // φ2
	VPERM2F128 $0x20, Y7, Y5, Y1    // V2
	VPERM2F128 $0x31, Y6, Y4, Y2    // φ3
	VPERM2F128 $0x31, Y7, Y5, Y3    // V3
	VMULPD     64(DX), Y0, Y4
	VADDPD     Y4, Y8, Y8
	VMULPD     96(DX), Y2, Y4
	VADDPD     Y4, Y8, Y8
	VMULPD     192(DX), Y0, Y4
	VADDPD     Y4, Y9, Y9
	VMULPD     224(DX), Y2, Y4
	VADDPD     Y4, Y9, Y9
	VMULPD     64(DX), Y1, Y4
	VADDPD     Y4, Y10, Y10
	VMULPD     96(DX), Y3, Y4
	VADDPD     Y4, Y10, Y10
	// the row weights, then the four sums over the lanes in order from +0
	VMULPD     256(DX), Y8, Y0      // w1_b px_b
	VMULPD     256(DX), Y10, Y1     // w1_b vx_b
	VMULPD     256(DX), Y9, Y2      // w1_b dpx_b
	VMULPD     288(DX), Y8, Y3      // w1'_b px_b
	VXORPD     X11, X11, X11
	VXORPD     X12, X12, X12
	VXORPD     X13, X13, X13
	VXORPD     X14, X14, X14
	VADDSD     X0, X11, X11
	VADDSD     X1, X12, X12
	VADDSD     X2, X13, X13
	VADDSD     X3, X14, X14
	VUNPCKHPD  X0, X0, X4
	VUNPCKHPD  X1, X1, X5
	VUNPCKHPD  X2, X2, X6
	VUNPCKHPD  X3, X3, X7
	VADDSD     X4, X11, X11
	VADDSD     X5, X12, X12
	VADDSD     X6, X13, X13
	VADDSD     X7, X14, X14
	VEXTRACTF128 $1, Y0, X0
	VEXTRACTF128 $1, Y1, X1
	VEXTRACTF128 $1, Y2, X2
	VEXTRACTF128 $1, Y3, X3
	VADDSD     X0, X11, X11
	VADDSD     X1, X12, X12
	VADDSD     X2, X13, X13
	VADDSD     X3, X14, X14
	VUNPCKHPD  X0, X0, X4
	VUNPCKHPD  X1, X1, X5
	VUNPCKHPD  X2, X2, X6
	VUNPCKHPD  X3, X3, X7
	VADDSD     X4, X11, X11
	VADDSD     X5, X12, X12
	VADDSD     X6, X13, X13
	VADDSD     X7, X14, X14
	VMOVSD     X11, (DI)
	VMOVSD     X12, 8(DI)
	VMOVSD     X13, 16(DI)
	VMOVSD     X14, 24(DI)
	ADDQ       $32, DI
	ADDQ       R9, SI
	DECQ       CX
	JNZ        layer

	VZEROUPPER
	RET
