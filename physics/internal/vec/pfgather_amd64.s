//go:build !purego

#include "textflag.h"

// The gathers of Projective Fluids' residual and matrix product (PFResidSums, PFGatherSum,
// PFDotSum): n ≥ 1 pairs in groups of four, the last n mod 4 with the lanes past n masked: their gradients load as +0, so their terms are zeros,
// which leave a lane's sum as it is. Y15 holds the mask of the last group.

DATA pfgIota<>+0(SB)/8, $0
DATA pfgIota<>+8(SB)/8, $1
DATA pfgIota<>+16(SB)/8, $2
DATA pfgIota<>+24(SB)/8, $3
GLOBL pfgIota<>(SB), RODATA|NOPTR, $32

DATA pfgIota32<>+0(SB)/4, $0
DATA pfgIota32<>+4(SB)/4, $1
DATA pfgIota32<>+8(SB)/4, $2
DATA pfgIota32<>+12(SB)/4, $3
GLOBL pfgIota32<>(SB), RODATA|NOPTR, $16

// PFGTAIL: the mask of the lanes below n − AX in Y15, the last group's indices copied to the
// start of out (R10; 0 in the other lanes, valid as js[0] is), and SI moved so that
// (SI)(AX*4) reads them there.
#define PFGTAIL \
	MOVQ         CX, BX \
	SUBQ         AX, BX \
	VMOVQ        BX, X14 \
	VPBROADCASTD X14, X13 \
	VPCMPGTD     pfgIota32<>(SB), X13, X13 \
	VPMASKMOVD   (SI)(AX*4), X13, X13 \
	VMOVDQU      X13, (R10) \
	VPBROADCASTQ X14, Y15 \
	VPCMPGTQ     pfgIota<>(SB), Y15, Y15 \
	MOVQ         R10, SI \
	LEAQ         (AX*4), BX \
	SUBQ         BX, SI

// PFGIDX loads the four indices at (SI)(AX*4), each times SCALE, into DI, R13, R14, BX.
#define PFGIDX(SCALE) \
	MOVLQSX      0(SI)(AX*4), DI \
	MOVLQSX      4(SI)(AX*4), R13 \
	MOVLQSX      8(SI)(AX*4), R14 \
	MOVLQSX      12(SI)(AX*4), BX \
	SCALE(DI) \
	SCALE(R13) \
	SCALE(R14) \
	SCALE(BX)

#define TWICE(R) SHLQ $1, R
#define THRICE(R) LEAQ (R)(R*2), R
#define ONCE(R)

// PFRESID: with μV in Y2 and V²/‖∇C‖² in Y1 and the gradient's components in Y3, Y4, Y5,
// the terms c₀g and (c₁g)g added to Y6–Y11.
#define PFRESID \
	VMULPD       Y3, Y2, Y12 \
	VADDPD       Y12, Y6, Y6 \
	VMULPD       Y3, Y1, Y12 \
	VMULPD       Y3, Y12, Y12 \
	VADDPD       Y12, Y9, Y9 \
	VMULPD       Y4, Y2, Y12 \
	VADDPD       Y12, Y7, Y7 \
	VMULPD       Y4, Y1, Y12 \
	VMULPD       Y4, Y12, Y12 \
	VADDPD       Y12, Y10, Y10 \
	VMULPD       Y5, Y2, Y12 \
	VADDPD       Y12, Y8, Y8 \
	VMULPD       Y5, Y1, Y12 \
	VMULPD       Y5, Y12, Y12 \
	VADDPD       Y12, Y11, Y11

// PFCOEF gathers the pairs coef[j] (16 bytes each, at R8) of the four indices into Y2 (first)
// and Y1 (second).
#define PFCOEF \
	VMOVUPD      (R8)(DI*8), X0 \
	VMOVUPD      (R8)(R13*8), X1 \
	VINSERTF128  $1, (R8)(R14*8), Y0, Y0 \
	VINSERTF128  $1, (R8)(BX*8), Y1, Y1 \
	VUNPCKLPD    Y1, Y0, Y2 \
	VUNPCKHPD    Y1, Y0, Y1

// func pfResidAVX(js *int32, n int, coef *[2]float64, gx, gy, gz *float64, out *[6][4]float64)
TEXT ·pfResidAVX(SB), NOSPLIT, $0-56
	MOVQ    js+0(FP), SI
	MOVQ    n+8(FP), CX
	MOVQ    coef+16(FP), R8
	MOVQ    gx+24(FP), R9
	MOVQ    gy+32(FP), R11
	MOVQ    gz+40(FP), R12
	MOVQ    out+48(FP), R10
	VXORPD  Y6, Y6, Y6
	VXORPD  Y7, Y7, Y7
	VXORPD  Y8, Y8, Y8
	VXORPD  Y9, Y9, Y9
	VXORPD  Y10, Y10, Y10
	VXORPD  Y11, Y11, Y11
	XORQ    AX, AX

	PCALIGN $32
rloop:
	LEAQ    4(AX), BX
	CMPQ    BX, CX
	JGT     rtail
	PFGIDX(TWICE)
	PFCOEF
	VMOVUPD (R9)(AX*8), Y3
	VMOVUPD (R11)(AX*8), Y4
	VMOVUPD (R12)(AX*8), Y5
	PFRESID
	ADDQ    $4, AX
	JMP     rloop

rtail:
	CMPQ       AX, CX
	JGE        rdone
	PFGTAIL
	PFGIDX(TWICE)
	PFCOEF
	VMASKMOVPD (R9)(AX*8), Y15, Y3
	VMASKMOVPD (R11)(AX*8), Y15, Y4
	VMASKMOVPD (R12)(AX*8), Y15, Y5
	PFRESID

rdone:
	VMOVUPD Y6, 0(R10)
	VMOVUPD Y7, 32(R10)
	VMOVUPD Y8, 64(R10)
	VMOVUPD Y9, 96(R10)
	VMOVUPD Y10, 128(R10)
	VMOVUPD Y11, 160(R10)
	VZEROUPPER
	RET

// PFV gathers v[j] (at R8) of the four indices into Y2.
#define PFV \
	VMOVSD       (R8)(DI*8), X2 \
	VMOVHPD      (R8)(R13*8), X2, X2 \
	VMOVSD       (R8)(R14*8), X1 \
	VMOVHPD      (R8)(BX*8), X1, X1 \
	VINSERTF128  $1, X1, Y2, Y2

// PFGSUM adds v g (v in Y2, g in Y3, Y4, Y5) to Y6, Y7, Y8.
#define PFGSUM \
	VMULPD       Y3, Y2, Y12 \
	VADDPD       Y12, Y6, Y6 \
	VMULPD       Y4, Y2, Y12 \
	VADDPD       Y12, Y7, Y7 \
	VMULPD       Y5, Y2, Y12 \
	VADDPD       Y12, Y8, Y8

// func pfGatherAVX(js *int32, n int, v, gx, gy, gz *float64, out *[3][4]float64)
TEXT ·pfGatherAVX(SB), NOSPLIT, $0-56
	MOVQ    js+0(FP), SI
	MOVQ    n+8(FP), CX
	MOVQ    v+16(FP), R8
	MOVQ    gx+24(FP), R9
	MOVQ    gy+32(FP), R11
	MOVQ    gz+40(FP), R12
	MOVQ    out+48(FP), R10
	VXORPD  Y6, Y6, Y6
	VXORPD  Y7, Y7, Y7
	VXORPD  Y8, Y8, Y8
	XORQ    AX, AX

	PCALIGN $32
gloop:
	LEAQ    4(AX), BX
	CMPQ    BX, CX
	JGT     gtail
	PFGIDX(ONCE)
	PFV
	VMOVUPD (R9)(AX*8), Y3
	VMOVUPD (R11)(AX*8), Y4
	VMOVUPD (R12)(AX*8), Y5
	PFGSUM
	ADDQ    $4, AX
	JMP     gloop

gtail:
	CMPQ       AX, CX
	JGE        gdone
	PFGTAIL
	PFGIDX(ONCE)
	PFV
	VMASKMOVPD (R9)(AX*8), Y15, Y3
	VMASKMOVPD (R11)(AX*8), Y15, Y4
	VMASKMOVPD (R12)(AX*8), Y15, Y5
	PFGSUM

gdone:
	VMOVUPD Y6, 0(R10)
	VMOVUPD Y7, 32(R10)
	VMOVUPD Y8, 64(R10)
	VZEROUPPER
	RET

// PFD gathers d[j] (Vec3, at R8) of the four indices (times 3) into Y0 (x), Y3 (y), Y2 (z).
#define PFD \
	VMOVUPD      (R8)(DI*8), X0 \
	VMOVUPD      (R8)(R13*8), X1 \
	VINSERTF128  $1, (R8)(R14*8), Y0, Y0 \
	VINSERTF128  $1, (R8)(BX*8), Y1, Y1 \
	VMOVSD       16(R8)(DI*8), X2 \
	VMOVHPD      16(R8)(R13*8), X2, X2 \
	VMOVSD       16(R8)(R14*8), X3 \
	VMOVHPD      16(R8)(BX*8), X3, X3 \
	VINSERTF128  $1, X3, Y2, Y2 \
	VUNPCKHPD    Y1, Y0, Y3 \
	VUNPCKLPD    Y1, Y0, Y0

// PFDOT adds (g_x d_x + g_y d_y) + g_z d_z (g in Y4, Y5, Y12) to Y6.
#define PFDOT \
	VMULPD       Y0, Y4, Y4 \
	VMULPD       Y3, Y5, Y5 \
	VADDPD       Y5, Y4, Y4 \
	VMULPD       Y2, Y12, Y12 \
	VADDPD       Y12, Y4, Y4 \
	VADDPD       Y4, Y6, Y6

// func pfDotAVX(js *int32, n int, d *mgl64.Vec3, gx, gy, gz *float64, out *[4]float64)
TEXT ·pfDotAVX(SB), NOSPLIT, $0-56
	MOVQ    js+0(FP), SI
	MOVQ    n+8(FP), CX
	MOVQ    d+16(FP), R8
	MOVQ    gx+24(FP), R9
	MOVQ    gy+32(FP), R11
	MOVQ    gz+40(FP), R12
	MOVQ    out+48(FP), R10
	VXORPD  Y6, Y6, Y6
	XORQ    AX, AX

	PCALIGN $32
dloop:
	LEAQ    4(AX), BX
	CMPQ    BX, CX
	JGT     dtail
	PFGIDX(THRICE)
	PFD
	VMOVUPD (R9)(AX*8), Y4
	VMOVUPD (R11)(AX*8), Y5
	VMOVUPD (R12)(AX*8), Y12
	PFDOT
	ADDQ    $4, AX
	JMP     dloop

dtail:
	CMPQ       AX, CX
	JGE        ddone
	PFGTAIL
	PFGIDX(THRICE)
	PFD
	VMASKMOVPD (R9)(AX*8), Y15, Y4
	VMASKMOVPD (R11)(AX*8), Y15, Y5
	VMASKMOVPD (R12)(AX*8), Y15, Y12
	PFDOT

ddone:
	VMOVUPD Y6, 0(R10)
	VZEROUPPER
	RET
