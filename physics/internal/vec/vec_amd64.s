//go:build !purego

#include "textflag.h"

// func gatherSum4RowsAVX(start, js *int32, gs *float32, v *[4]float64, n int, out *[4]float64)
//
// Per row k < n, over its pairs start[k] ≤ e < start[k+1], four pairs a step: their four g_e
// widened to float64 at once (VCVTPS2PD) and each broadcast to the lanes (VPERMPD), times the
// 32-byte row v[j_e], added to one of four accumulators by the pair's number within the row
// modulo 4 (Y0, Y5, Y6, Y7), so that no pair's sum waits for the one before it; the last one
// to three pairs (a row's length modulo 4) one at a time into the first (Y0); then
// out[k] = (s0 + s1) + (s2 + s3). The same products and sums per component, in the same order,
// as the Go loop. The scalar widening merges into X15, which holds zero, so it does not wait
// for the register's last value.
TEXT ·gatherSum4RowsAVX(SB), NOSPLIT, $0-48
	MOVQ   start+0(FP), R12
	MOVQ   js+8(FP), SI
	MOVQ   gs+16(FP), DI
	MOVQ   v+24(FP), R8
	MOVQ   n+32(FP), R13
	MOVQ   out+40(FP), R11
	VXORPD X15, X15, X15
	XORQ   R14, R14

grow:
	CMPQ    R14, R13
	JGE     gdone
	MOVLQSX (R12)(R14*4), AX
	MOVLQSX 4(R12)(R14*4), CX
	VXORPD  Y0, Y0, Y0
	VXORPD  Y5, Y5, Y5
	VXORPD  Y6, Y6, Y6
	VXORPD  Y7, Y7, Y7
	LEAQ    -3(CX), DX

	PCALIGN $32
gloop:
	CMPQ      AX, DX
	JGE       gtail
	VCVTPS2PD (DI)(AX*4), Y8
	MOVLQSX   (SI)(AX*4), BX
	MOVLQSX   4(SI)(AX*4), R9
	MOVLQSX   8(SI)(AX*4), R10
	SHLQ      $5, BX
	SHLQ      $5, R9
	SHLQ      $5, R10
	VPERMPD   $0x00, Y8, Y1
	VPERMPD   $0x55, Y8, Y2
	VPERMPD   $0xAA, Y8, Y3
	VPERMPD   $0xFF, Y8, Y4
	VMULPD    (R8)(BX*1), Y1, Y1
	VMULPD    (R8)(R9*1), Y2, Y2
	VMULPD    (R8)(R10*1), Y3, Y3
	MOVLQSX   12(SI)(AX*4), BX
	SHLQ      $5, BX
	VMULPD    (R8)(BX*1), Y4, Y4
	VADDPD    Y1, Y0, Y0
	VADDPD    Y2, Y5, Y5
	VADDPD    Y3, Y6, Y6
	VADDPD    Y4, Y7, Y7
	ADDQ      $4, AX
	JMP       gloop

gtail:
	CMPQ         AX, CX
	JGE          gsum
	MOVLQSX      (SI)(AX*4), BX
	SHLQ         $5, BX
	VCVTSS2SD    (DI)(AX*4), X15, X1
	VBROADCASTSD X1, Y1
	VMULPD       (R8)(BX*1), Y1, Y1
	VADDPD       Y1, Y0, Y0
	INCQ         AX
	JMP          gtail

gsum:
	VADDPD  Y5, Y0, Y0
	VADDPD  Y7, Y6, Y6
	VADDPD  Y6, Y0, Y0
	MOVQ    R14, BX
	SHLQ    $5, BX
	VMOVUPD Y0, (R11)(BX*1)
	INCQ    R14
	JMP     grow

gdone:
	VZEROUPPER
	RET

// func kGradSumRowsAVX(start, js *int32, gs *float32, v, ys *[4]float64, m float64, n int, out *[4]float64)
//
// Per row k < n with y = ys[k], over its pairs start[k] ≤ e < start[k+1], two pairs a step,
// the components in the lanes: k_j broadcast from the row's lane 3, f = m·(k_i + k_j)·g, and
// f·(y − v_j) added to the even pairs' accumulator (Y0) or the odd pairs' (Y7), counted from
// the row's first; then out[k] = even + odd (lane 3 carries f·(k_i − k_j), not used).
TEXT ·kGradSumRowsAVX(SB), NOSPLIT, $0-64
	MOVQ         start+0(FP), R12
	MOVQ         js+8(FP), SI
	MOVQ         gs+16(FP), DI
	MOVQ         v+24(FP), R8
	MOVQ         ys+32(FP), R10
	VBROADCASTSD m+40(FP), Y4
	MOVQ         n+48(FP), R13
	MOVQ         out+56(FP), R11
	VXORPD       X15, X15, X15
	XORQ         R14, R14

krow:
	CMPQ    R14, R13
	JGE     krdone
	MOVQ    R14, BX
	SHLQ    $5, BX
	VMOVUPD (R10)(BX*1), Y2 // y
	VPERMPD $0xff, Y2, Y3   // k_i in every lane
	MOVLQSX (R12)(R14*4), AX
	MOVLQSX 4(R12)(R14*4), CX
	VXORPD  Y0, Y0, Y0
	VXORPD  Y7, Y7, Y7
	LEAQ    -1(CX), DX

	PCALIGN $32
krloop:
	CMPQ         AX, DX
	JGE          krtail
	MOVLQSX      (SI)(AX*4), BX
	MOVLQSX      4(SI)(AX*4), R9
	SHLQ         $5, BX
	SHLQ         $5, R9
	VMOVUPD      (R8)(BX*1), Y1
	VMOVUPD      (R8)(R9*1), Y8
	VPERMPD      $0xff, Y1, Y5
	VPERMPD      $0xff, Y8, Y9
	VADDPD       Y5, Y3, Y5
	VADDPD       Y9, Y3, Y9
	VMULPD       Y5, Y4, Y5
	VMULPD       Y9, Y4, Y9
	VCVTSS2SD    (DI)(AX*4), X15, X6
	VCVTSS2SD    4(DI)(AX*4), X15, X10
	VBROADCASTSD X6, Y6
	VBROADCASTSD X10, Y10
	VMULPD       Y6, Y5, Y5
	VMULPD       Y10, Y9, Y9
	VSUBPD       Y1, Y2, Y1
	VSUBPD       Y8, Y2, Y8
	VMULPD       Y1, Y5, Y1
	VMULPD       Y8, Y9, Y8
	VADDPD       Y1, Y0, Y0
	VADDPD       Y8, Y7, Y7
	ADDQ         $2, AX
	JMP          krloop

krtail:
	CMPQ         AX, CX
	JGE          krsum
	MOVLQSX      (SI)(AX*4), BX
	SHLQ         $5, BX
	VMOVUPD      (R8)(BX*1), Y1
	VPERMPD      $0xff, Y1, Y5
	VADDPD       Y5, Y3, Y5
	VMULPD       Y5, Y4, Y5
	VCVTSS2SD    (DI)(AX*4), X15, X6
	VBROADCASTSD X6, Y6
	VMULPD       Y6, Y5, Y5
	VSUBPD       Y1, Y2, Y1
	VMULPD       Y1, Y5, Y1
	VADDPD       Y1, Y0, Y0

krsum:
	VADDPD  Y7, Y0, Y0
	MOVQ    R14, BX
	SHLQ    $5, BX
	VMOVUPD Y0, (R11)(BX*1)
	INCQ    R14
	JMP     krow

krdone:
	VZEROUPPER
	RET

// The lanes of a three-vector row: the first three, not the fourth (which belongs to the next
// row, or lies past the slice's end).
DATA rowMask<>+0(SB)/8, $-1
DATA rowMask<>+8(SB)/8, $-1
DATA rowMask<>+16(SB)/8, $-1
DATA rowMask<>+24(SB)/8, $0
GLOBL rowMask<>(SB), RODATA|NOPTR, $32

// func predictSumsAVX(js *int32, gs *float32, n int, x, v *mgl64.Vec3, q *[4]float64, xi, vi *mgl64.Vec3, out *[4][4]float64)
//
// Two pairs a step, the components in the lanes: x_j and v_j by masked loads of their three
// lanes, ∇W = g·(x_i − x_j), and the four sums of the Go loop per lane, the even-numbered
// pairs' in Y8–Y11 and the odd ones' in Y0, Y5–Y7 (an odd last pair alone into the even
// ones), so that a pair's sums do not wait for the pair before; then each sum is even + odd.
TEXT ·predictSumsAVX(SB), NOSPLIT, $0-72
	MOVQ         js+0(FP), SI
	MOVQ         gs+8(FP), DI
	MOVQ         n+16(FP), CX
	MOVQ         x+24(FP), R8
	MOVQ         v+32(FP), R9
	MOVQ         q+40(FP), R10
	VMOVUPD      rowMask<>(SB), Y14
	MOVQ         xi+48(FP), DX
	VMASKMOVPD   (DX), Y14, Y12     // x_i
	MOVQ         vi+56(FP), DX
	VMASKMOVPD   (DX), Y14, Y13     // v_i
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	VXORPD       Y10, Y10, Y10
	VXORPD       Y11, Y11, Y11
	VXORPD       Y0, Y0, Y0
	VXORPD       Y5, Y5, Y5
	VXORPD       Y6, Y6, Y6
	VXORPD       Y7, Y7, Y7
	VXORPD       X15, X15, X15
	XORQ         AX, AX
	LEAQ         -1(CX), DX

	PCALIGN $32
ploop:
	CMPQ         AX, DX
	JGE          ptail
	MOVLQSX      (SI)(AX*4), BX
	MOVLQSX      4(SI)(AX*4), R13
	LEAQ         (BX)(BX*2), R11
	LEAQ         (R13)(R13*2), R12
	SHLQ         $3, R11            // 24 j
	SHLQ         $3, R12
	SHLQ         $5, BX             // 32 j
	SHLQ         $5, R13
	VMASKMOVPD   (R8)(R11*1), Y14, Y1
	VMASKMOVPD   (R8)(R12*1), Y14, Y4
	VSUBPD       Y1, Y12, Y1        // x_i − x_j
	VSUBPD       Y4, Y12, Y4
	VCVTSS2SD    (DI)(AX*4), X15, X2
	VCVTSS2SD    4(DI)(AX*4), X15, X3
	VBROADCASTSD X2, Y2
	VBROADCASTSD X3, Y3
	VMULPD       Y1, Y2, Y1         // ∇W = g·(x_i − x_j), the even pair's
	VMULPD       Y4, Y3, Y4         // and the odd pair's
	VADDPD       Y1, Y8, Y8
	VADDPD       Y4, Y0, Y0
	VMULPD       Y1, Y1, Y2
	VMULPD       Y4, Y4, Y3
	VADDPD       Y2, Y9, Y9
	VADDPD       Y3, Y5, Y5
	VMASKMOVPD   (R9)(R11*1), Y14, Y2
	VMASKMOVPD   (R9)(R12*1), Y14, Y3
	VSUBPD       Y2, Y13, Y2        // v_i − v_j
	VSUBPD       Y3, Y13, Y3
	VMULPD       Y1, Y2, Y2
	VMULPD       Y4, Y3, Y3
	VADDPD       Y2, Y10, Y10
	VADDPD       Y3, Y6, Y6
	VBROADCASTSD 24(R10)(BX*1), Y2  // q_j
	VBROADCASTSD 24(R10)(R13*1), Y3
	VMULPD       Y1, Y2, Y2
	VMULPD       Y4, Y3, Y3
	VADDPD       Y2, Y11, Y11
	VADDPD       Y3, Y7, Y7
	ADDQ         $2, AX
	JMP          ploop

ptail:
	CMPQ         AX, CX
	JGE          pdone
	MOVLQSX      (SI)(AX*4), BX
	LEAQ         (BX)(BX*2), R11
	SHLQ         $3, R11
	SHLQ         $5, BX
	VMASKMOVPD   (R8)(R11*1), Y14, Y1
	VSUBPD       Y1, Y12, Y1
	VCVTSS2SD    (DI)(AX*4), X15, X2
	VBROADCASTSD X2, Y2
	VMULPD       Y1, Y2, Y1
	VADDPD       Y1, Y8, Y8
	VMULPD       Y1, Y1, Y3
	VADDPD       Y3, Y9, Y9
	VMASKMOVPD   (R9)(R11*1), Y14, Y4
	VSUBPD       Y4, Y13, Y4
	VMULPD       Y1, Y4, Y4
	VADDPD       Y4, Y10, Y10
	VBROADCASTSD 24(R10)(BX*1), Y2
	VMULPD       Y1, Y2, Y2
	VADDPD       Y2, Y11, Y11

pdone:
	VADDPD  Y0, Y8, Y8
	VADDPD  Y5, Y9, Y9
	VADDPD  Y6, Y10, Y10
	VADDPD  Y7, Y11, Y11
	MOVQ    out+64(FP), DX
	VMOVUPD Y8, (DX)
	VMOVUPD Y9, 32(DX)
	VMOVUPD Y10, 64(DX)
	VMOVUPD Y11, 96(DX)
	VZEROUPPER
	RET

// func factorSumsAVX(js *int32, gs *float32, n int, x, v *mgl64.Vec3, xi, vi *mgl64.Vec3, c *[4]float64, out *[3][4]float64)
//
// One pair a step, the components in the lanes: x_j and v_j by masked loads of their three
// lanes; g·(x_j − c) with c's lane 3 at −1 (so lane 3 sums g), ∇W = g·(x_i − x_j), and the
// per-pair |∇W|² and (v_i − v_j)·∇W added across the lanes as (x + y) + z before their sums.
TEXT ·factorSumsAVX(SB), NOSPLIT, $0-72
	MOVQ         js+0(FP), SI
	MOVQ         gs+8(FP), DI
	MOVQ         n+16(FP), CX
	MOVQ         x+24(FP), R8
	MOVQ         v+32(FP), R9
	VMOVUPD      rowMask<>(SB), Y14
	MOVQ         xi+40(FP), DX
	VMASKMOVPD   (DX), Y14, Y12     // x_i
	MOVQ         vi+48(FP), DX
	VMASKMOVPD   (DX), Y14, Y13     // v_i
	MOVQ         c+56(FP), DX
	VMOVUPD      (DX), Y7           // (c, −1)
	VXORPD       Y8, Y8, Y8         // Σ g (x_j − c), Σ g
	VXORPD       Y9, Y9, Y9         // Σ ∇W
	VXORPD       X6, X6, X6         // Σ |∇W|²
	VXORPD       X5, X5, X5         // Σ (v_i − v_j)·∇W
	VXORPD       X15, X15, X15
	XORQ         AX, AX

	PCALIGN $32
floop:
	CMPQ         AX, CX
	JGE          fdone
	MOVLQSX      (SI)(AX*4), BX
	LEAQ         (BX)(BX*2), R11
	SHLQ         $3, R11            // 24 j
	VMASKMOVPD   (R8)(R11*1), Y14, Y1
	VCVTSS2SD    (DI)(AX*4), X15, X2
	VBROADCASTSD X2, Y2
	VSUBPD       Y7, Y1, Y3         // x_j − c, 1
	VMULPD       Y3, Y2, Y3
	VADDPD       Y3, Y8, Y8
	VSUBPD       Y1, Y12, Y1        // x_i − x_j
	VMULPD       Y1, Y2, Y1         // ∇W = g·(x_i − x_j)
	VADDPD       Y1, Y9, Y9
	VMULPD       Y1, Y1, Y3
	VUNPCKHPD    X3, X3, X4
	VADDSD       X4, X3, X4         // x² + y²
	VEXTRACTF128 $1, Y3, X3
	VADDSD       X3, X4, X4         // + z²
	VADDSD       X4, X6, X6
	VMASKMOVPD   (R9)(R11*1), Y14, Y4
	VSUBPD       Y4, Y13, Y4        // v_i − v_j
	VMULPD       Y1, Y4, Y4
	VUNPCKHPD    X4, X4, X3
	VADDSD       X3, X4, X3
	VEXTRACTF128 $1, Y4, X4
	VADDSD       X4, X3, X3
	VADDSD       X3, X5, X5
	INCQ         AX
	JMP          floop

fdone:
	MOVQ    out+64(FP), DX
	VMOVUPD Y8, (DX)
	VMOVUPD Y9, 32(DX)
	VMOVSD  X6, 64(DX)
	VMOVSD  X5, 72(DX)
	VZEROUPPER
	RET

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL   $0, CX
	XGETBV
	MOVL   AX, eax+0(FP)
	MOVL   DX, edx+4(FP)
	RET
