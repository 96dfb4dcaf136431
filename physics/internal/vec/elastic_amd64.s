//go:build !purego

#include "textflag.h"

// DIVPAIR adds pair k's products (k in the index register kr, scratch BX and R9) to the rows
// r0, r1, r2: b widened from four single-precision values to (b0, b1, b2, ·), and row s of
// P_j (four consecutive entries of the 64-byte StressRow, at 0, 40 and 16 bytes) times it,
// lane by lane. Lane 3 is unused.
#define DIVPAIR(kr, r0, r1, r2) \
	MOVLQSX   (SI)(kr*4), BX \
	SHLQ      $6, BX \
	LEAQ      (kr)(kr*2), R9 \
	VCVTPS2PD (DI)(R9*4), Y1 \
	VMULPD    (R8)(BX*1), Y1, Y2 \
	VADDPD    Y2, r0, r0 \
	VMULPD    40(R8)(BX*1), Y1, Y3 \
	VADDPD    Y3, r1, r1 \
	VMULPD    16(R8)(BX*1), Y1, Y2 \
	VADDPD    Y2, r2, r2

// func stressDivAVX(js *int32, bs *[3]float32, n int, st *[8]float64, out *[12]float64)
//
// Two pairs a step, the even one into Y4–Y6 and the odd one into Y7–Y9, a last odd pair into
// Y4–Y6, and the two sets added at the end, as the Go loop.
TEXT ·stressDivAVX(SB), NOSPLIT, $0-40
	MOVQ   js+0(FP), SI
	MOVQ   bs+8(FP), DI
	MOVQ   n+16(FP), CX
	MOVQ   st+24(FP), R8
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	XORQ   AX, AX

dloop:
	LEAQ 1(AX), R10
	CMPQ R10, CX
	JGE  dtail
	DIVPAIR(AX, Y4, Y5, Y6)
	DIVPAIR(R10, Y7, Y8, Y9)
	ADDQ $2, AX
	JMP  dloop

dtail:
	CMPQ AX, CX
	JGE  ddone
	DIVPAIR(AX, Y4, Y5, Y6)

ddone:
	VADDPD  Y7, Y4, Y4
	VADDPD  Y8, Y5, Y5
	VADDPD  Y9, Y6, Y6
	MOVQ    out+32(FP), DX
	VMOVUPD Y4, (DX)
	VMOVUPD Y5, 32(DX)
	VMOVUPD Y6, 64(DX)
	VZEROUPPER
	RET

// OUTERPAIR adds pair k's products (k in kr, scratch BX, R9, R11) to the rows r0, r1, r2:
// g widened from four single-precision values to (g0, g1, g2, ·), and a_s − o_s (a_s broadcast
// from src[j], o_s in Y12–Y14) times it, lane by lane. Lane 3 is unused.
#define OUTERPAIR(kr, r0, r1, r2) \
	MOVLQSX      (SI)(kr*4), BX \
	LEAQ         (BX)(BX*2), R11 \
	LEAQ         (kr)(kr*2), R9 \
	VCVTPS2PD    (DI)(R9*4), Y1 \
	VBROADCASTSD (R8)(R11*8), Y2 \
	VSUBPD       Y12, Y2, Y2 \
	VMULPD       Y1, Y2, Y2 \
	VADDPD       Y2, r0, r0 \
	VBROADCASTSD 8(R8)(R11*8), Y3 \
	VSUBPD       Y13, Y3, Y3 \
	VMULPD       Y1, Y3, Y3 \
	VADDPD       Y3, r1, r1 \
	VBROADCASTSD 16(R8)(R11*8), Y2 \
	VSUBPD       Y14, Y2, Y2 \
	VMULPD       Y1, Y2, Y2 \
	VADDPD       Y2, r2, r2

// func outerSumsAVX(js *int32, gs *[3]float32, n int, src, o *mgl64.Vec3, out *[12]float64)
//
// Two pairs a step, the even one into Y4–Y6 and the odd one into Y7–Y9, a last odd pair into
// Y4–Y6, and the two sets added at the end, as the Go loop.
TEXT ·outerSumsAVX(SB), NOSPLIT, $0-48
	MOVQ         js+0(FP), SI
	MOVQ         gs+8(FP), DI
	MOVQ         n+16(FP), CX
	MOVQ         src+24(FP), R8
	MOVQ         o+32(FP), DX
	VBROADCASTSD (DX), Y12
	VBROADCASTSD 8(DX), Y13
	VBROADCASTSD 16(DX), Y14
	VXORPD       Y4, Y4, Y4
	VXORPD       Y5, Y5, Y5
	VXORPD       Y6, Y6, Y6
	VXORPD       Y7, Y7, Y7
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9
	XORQ         AX, AX

oloop:
	LEAQ 1(AX), R10
	CMPQ R10, CX
	JGE  otail
	OUTERPAIR(AX, Y4, Y5, Y6)
	OUTERPAIR(R10, Y7, Y8, Y9)
	ADDQ $2, AX
	JMP  oloop

otail:
	CMPQ AX, CX
	JGE  odone
	OUTERPAIR(AX, Y4, Y5, Y6)

odone:
	VADDPD  Y7, Y4, Y4
	VADDPD  Y8, Y5, Y5
	VADDPD  Y9, Y6, Y6
	MOVQ    out+40(FP), DX
	VMOVUPD Y4, (DX)
	VMOVUPD Y5, 32(DX)
	VMOVUPD Y6, 64(DX)
	VZEROUPPER
	RET

// func productRowsAVX(start, js *int32, bs *[3]float32, st *[8]float64, own *[4]float64, src *mgl64.Vec3, pinned *bool, lo, hi int, c, v2 float64, ap *mgl64.Vec3) float64
//
// Per particle i of [lo, hi): pinned, ap[i] = 0; otherwise the neighbours' sum of
// stressDivAVX over its pairs, f = ((r_s0 + r_s1) + r_s2)_s from the three rows (lane 3 of
// each row cleared, pairwise sums by VHADDPD, and the third terms moved under them), P_i·own_i from the row's three columns (at 0, 40 and 16 bytes) times the
// broadcast own_i, (P·own − f)·v2, ap[i] = src[i] − c·that (stored as 16 + 8 bytes), and
// ((s0·a0 + s1·a1) + s2·a2) added to the dot product in X14.
TEXT ·productRowsAVX(SB), NOSPLIT, $0-104
	MOVQ   start+0(FP), R12
	MOVQ   js+8(FP), SI
	MOVQ   bs+16(FP), DI
	MOVQ   st+24(FP), R8
	MOVQ   lo+56(FP), R13
	MOVQ   ap+88(FP), DX
	VXORPD Y15, Y15, Y15
	VXORPD X14, X14, X14

prow:
	CMPQ    R13, hi+64(FP)
	JGE     prdone
	LEAQ    (R13)(R13*2), R11
	SHLQ    $3, R11                // 24 i
	MOVQ    pinned+48(FP), AX
	MOVBLZX (AX)(R13*1), AX
	TESTL   AX, AX
	JZ      pfree
	VMOVUPD X15, (DX)(R11*1)
	VMOVSD  X15, 16(DX)(R11*1)
	INCQ    R13
	JMP     prow

pfree:
	MOVLQSX (R12)(R13*4), AX
	MOVLQSX 4(R12)(R13*4), CX
	VXORPD  Y4, Y4, Y4
	VXORPD  Y5, Y5, Y5
	VXORPD  Y6, Y6, Y6
	VXORPD  Y7, Y7, Y7
	VXORPD  Y8, Y8, Y8
	VXORPD  Y9, Y9, Y9

prloop:
	LEAQ 1(AX), R10
	CMPQ R10, CX
	JGE  prtail
	DIVPAIR(AX, Y4, Y5, Y6)
	DIVPAIR(R10, Y7, Y8, Y9)
	ADDQ $2, AX
	JMP  prloop

prtail:
	CMPQ AX, CX
	JGE  prsum
	DIVPAIR(AX, Y4, Y5, Y6)

prsum:
	VADDPD       Y7, Y4, Y4
	VADDPD       Y8, Y5, Y5
	VADDPD       Y9, Y6, Y6
	VBLENDPD     $8, Y15, Y4, Y4
	VBLENDPD     $8, Y15, Y5, Y5
	VBLENDPD     $8, Y15, Y6, Y6
	VHADDPD      Y5, Y4, Y10       // r00+r01, r10+r11, r02, r12
	VHADDPD      Y6, Y6, Y11       // r20+r21, r20+r21, r22, r22
	VPERMPD      $0x00, Y11, Y12
	VBLENDPD     $4, Y12, Y10, Y12 // r00+r01, r10+r11, r20+r21
	VPERMPD      $0x0e, Y10, Y13
	VBLENDPD     $4, Y11, Y13, Y13 // r02, r12, r22
	VADDPD       Y13, Y12, Y12     // f
	MOVQ         R13, BX
	SHLQ         $6, BX            // 64 i
	MOVQ         R13, R9
	SHLQ         $5, R9            // 32 i
	MOVQ         own+32(FP), AX
	VBROADCASTSD (AX)(R9*1), Y1
	VMULPD       (R8)(BX*1), Y1, Y1
	VBROADCASTSD 8(AX)(R9*1), Y2
	VMULPD       40(R8)(BX*1), Y2, Y2
	VADDPD       Y2, Y1, Y1
	VBROADCASTSD 16(AX)(R9*1), Y3
	VMULPD       16(R8)(BX*1), Y3, Y3
	VADDPD       Y3, Y1, Y1        // P·own
	VSUBPD       Y12, Y1, Y1       // P·own − f
	VBROADCASTSD v2+80(FP), Y2
	VMULPD       Y2, Y1, Y1        // force
	VBROADCASTSD c+72(FP), Y2
	VMULPD       Y2, Y1, Y1        // c·force
	MOVQ         src+40(FP), AX
	VMOVUPD      (AX)(R11*1), X0
	VMOVSD       16(AX)(R11*1), X2
	VINSERTF128  $1, X2, Y0, Y0    // s0, s1, s2, 0
	VSUBPD       Y1, Y0, Y1        // ap
	VMOVUPD      X1, (DX)(R11*1)
	VEXTRACTF128 $1, Y1, X3
	VMOVSD       X3, 16(DX)(R11*1)
	VMULPD       Y1, Y0, Y2        // s·ap by lanes
	VPERMILPD    $1, X2, X3
	VADDSD       X3, X2, X3        // s0·a0 + s1·a1
	VEXTRACTF128 $1, Y2, X2
	VADDSD       X2, X3, X3        // + s2·a2
	VADDSD       X3, X14, X14
	INCQ         R13
	JMP          prow

prdone:
	VMOVSD X14, ret+96(FP)
	VZEROUPPER
	RET

// func strainStressRowsAVX(start, js *int32, gs *[3]float32, src *mgl64.Vec3, lo, hi int, c, mu2, mu, lambda float64, st *[8]float64)
//
// outerSumsAVX per particle i of [lo, hi) with o = src[i] over its pairs start[i] ≤ k <
// start[i+1]; from the rows' matrix the diagonal and the sums of its off-diagonal pairs
// (M01, M02, M12) + (M10, M20, M21), gathered by permutes and blends, times c; the trace
// (e00 + e11) + e22 times lambda; and the stress row [xx, xy, xz, yz | zz, xy, yy, yz] with
// the diagonal mu2·e + λ and the off-diagonal mu·e (mu the shear modulus), stored at st[i].
TEXT ·strainStressRowsAVX(SB), NOSPLIT, $0-88
	MOVQ start+0(FP), R12
	MOVQ js+8(FP), SI
	MOVQ gs+16(FP), DI
	MOVQ src+24(FP), R8
	MOVQ lo+32(FP), R13
	MOVQ st+80(FP), DX

orow:
	CMPQ         R13, hi+40(FP)
	JGE          ordone
	MOVLQSX      (R12)(R13*4), AX
	MOVLQSX      4(R12)(R13*4), CX
	LEAQ         (R13)(R13*2), BX
	VBROADCASTSD (R8)(BX*8), Y12
	VBROADCASTSD 8(R8)(BX*8), Y13
	VBROADCASTSD 16(R8)(BX*8), Y14
	VXORPD       Y4, Y4, Y4
	VXORPD       Y5, Y5, Y5
	VXORPD       Y6, Y6, Y6
	VXORPD       Y7, Y7, Y7
	VXORPD       Y8, Y8, Y8
	VXORPD       Y9, Y9, Y9

orloop:
	LEAQ 1(AX), R10
	CMPQ R10, CX
	JGE  ortail
	OUTERPAIR(AX, Y4, Y5, Y6)
	OUTERPAIR(R10, Y7, Y8, Y9)
	ADDQ $2, AX
	JMP  orloop

ortail:
	CMPQ AX, CX
	JGE  orsum
	OUTERPAIR(AX, Y4, Y5, Y6)

orsum:
	VADDPD       Y7, Y4, Y4
	VADDPD       Y8, Y5, Y5
	VADDPD       Y9, Y6, Y6
	VBLENDPD     $2, Y5, Y4, Y10
	VBLENDPD     $4, Y6, Y10, Y10 // M00, M11, M22
	VPERMPD      $0xe9, Y4, Y11
	VBLENDPD     $4, Y5, Y11, Y11 // M01, M02, M12
	VPERMPD      $0xd0, Y6, Y0
	VBLENDPD     $1, Y5, Y0, Y0   // M10, M20, M21
	VADDPD       Y0, Y11, Y11
	VBROADCASTSD c+48(FP), Y0
	VMULPD       Y0, Y10, Y10     // e00, e11, e22
	VMULPD       Y0, Y11, Y11     // e01, e02, e12
	VPERMILPD    $1, X10, X1
	VADDSD       X1, X10, X1      // e00 + e11
	VEXTRACTF128 $1, Y10, X2
	VADDSD       X2, X1, X1       // (e00 + e11) + e22
	VMULSD       lambda+72(FP), X1, X1
	VBROADCASTSD X1, Y1           // λ
	VBROADCASTSD mu2+56(FP), Y2
	VMULPD       Y2, Y10, Y10
	VADDPD       Y1, Y10, Y10     // xx, yy, zz
	VBROADCASTSD mu+64(FP), Y2
	VMULPD       Y2, Y11, Y11     // xy, xz, yz
	VPERMPD      $0x90, Y11, Y3   // xy, xy, xz, yz
	VBLENDPD     $1, Y10, Y3, Y0  // xx, xy, xz, yz
	VPERMPD      $0x12, Y10, Y2   // zz, ·, yy, ·
	VBLENDPD     $0xa, Y3, Y2, Y2 // zz, xy, yy, yz
	MOVQ         R13, BX
	SHLQ         $6, BX
	VMOVUPD      Y0, (DX)(BX*1)
	VMOVUPD      Y2, 32(DX)(BX*1)
	INCQ         R13
	JMP          orow

ordone:
	VZEROUPPER
	RET

// func rotateGradsRowsAVX(start *int32, rc *[12]float64, cs, gs *[3]float32, lo, hi int, sum *[4]float64)
//
// Per particle i of [lo, hi): R_i's columns in Y4–Y6; per pair c's components widened and
// broadcast, g = (col0·c0 + col1·c1) + col2·c2 in the lanes, rounded to single precision and
// stored as 12 bytes (8 and 4: a 16-byte store would write into the next block's first
// gradient), widened back and added to the sum.
TEXT ·rotateGradsRowsAVX(SB), NOSPLIT, $0-56
	MOVQ   start+0(FP), R12
	MOVQ   rc+8(FP), R8
	MOVQ   cs+16(FP), SI
	MOVQ   gs+24(FP), DI
	MOVQ   lo+32(FP), R13
	MOVQ   sum+48(FP), DX
	VXORPD X15, X15, X15

grow:
	CMPQ    R13, hi+40(FP)
	JGE     grdone
	MOVLQSX (R12)(R13*4), AX
	MOVLQSX 4(R12)(R13*4), CX
	MOVQ    R13, BX
	LEAQ    (BX)(BX*2), BX
	SHLQ    $5, BX                 // 96 i
	VMOVUPD (R8)(BX*1), Y4
	VMOVUPD 32(R8)(BX*1), Y5
	VMOVUPD 64(R8)(BX*1), Y6
	VXORPD  Y0, Y0, Y0

grloop:
	CMPQ         AX, CX
	JGE          grsum
	LEAQ         (AX)(AX*2), R9    // 3 k
	VCVTSS2SD    (SI)(R9*4), X15, X1
	VBROADCASTSD X1, Y1
	VMULPD       Y4, Y1, Y1
	VCVTSS2SD    4(SI)(R9*4), X15, X2
	VBROADCASTSD X2, Y2
	VMULPD       Y5, Y2, Y2
	VADDPD       Y2, Y1, Y1
	VCVTSS2SD    8(SI)(R9*4), X15, X3
	VBROADCASTSD X3, Y3
	VMULPD       Y6, Y3, Y3
	VADDPD       Y3, Y1, Y1
	VCVTPD2PSY   Y1, X2
	VMOVQ        X2, (DI)(R9*4)
	VEXTRACTPS   $2, X2, 8(DI)(R9*4)
	VCVTPS2PD    X2, Y3
	VADDPD       Y3, Y0, Y0
	INCQ         AX
	JMP          grloop

grsum:
	MOVQ    R13, BX
	SHLQ    $5, BX
	VMOVUPD Y0, (DX)(BX*1)
	INCQ    R13
	JMP     grow

grdone:
	VZEROUPPER
	RET

// func rotateEachAVX(js *int32, rc *[12]float64, cs, gs *[3]float32, n int)
//
// rotateGradsRowsAVX's pair step with the rotation of R_{js[k]}, read per pair, and no sum.
TEXT ·rotateEachAVX(SB), NOSPLIT, $0-40
	MOVQ   js+0(FP), R12
	MOVQ   rc+8(FP), R8
	MOVQ   cs+16(FP), SI
	MOVQ   gs+24(FP), DI
	MOVQ   n+32(FP), CX
	VXORPD X15, X15, X15
	XORQ   AX, AX

eloop:
	CMPQ         AX, CX
	JGE          edone
	MOVLQSX      (R12)(AX*4), BX
	LEAQ         (BX)(BX*2), BX
	SHLQ         $5, BX            // 96 j
	LEAQ         (AX)(AX*2), R9    // 3 k
	VCVTSS2SD    (SI)(R9*4), X15, X1
	VBROADCASTSD X1, Y1
	VMULPD       (R8)(BX*1), Y1, Y1
	VCVTSS2SD    4(SI)(R9*4), X15, X2
	VBROADCASTSD X2, Y2
	VMULPD       32(R8)(BX*1), Y2, Y2
	VADDPD       Y2, Y1, Y1
	VCVTSS2SD    8(SI)(R9*4), X15, X3
	VBROADCASTSD X3, Y3
	VMULPD       64(R8)(BX*1), Y3, Y3
	VADDPD       Y3, Y1, Y1
	VCVTPD2PSY   Y1, X2
	VMOVQ        X2, (DI)(R9*4)
	VEXTRACTPS   $2, X2, 8(DI)(R9*4)
	INCQ         AX
	JMP          eloop

edone:
	VZEROUPPER
	RET
