//go:build !purego

#include "textflag.h"

// 1, ½, 2, 3 and 6 in four lanes each.
DATA pfConst<>+0(SB)/8, $0x3ff0000000000000
DATA pfConst<>+8(SB)/8, $0x3ff0000000000000
DATA pfConst<>+16(SB)/8, $0x3ff0000000000000
DATA pfConst<>+24(SB)/8, $0x3ff0000000000000
DATA pfConst<>+32(SB)/8, $0x3fe0000000000000
DATA pfConst<>+40(SB)/8, $0x3fe0000000000000
DATA pfConst<>+48(SB)/8, $0x3fe0000000000000
DATA pfConst<>+56(SB)/8, $0x3fe0000000000000
DATA pfConst<>+64(SB)/8, $0x4000000000000000
DATA pfConst<>+72(SB)/8, $0x4000000000000000
DATA pfConst<>+80(SB)/8, $0x4000000000000000
DATA pfConst<>+88(SB)/8, $0x4000000000000000
DATA pfConst<>+96(SB)/8, $0x4008000000000000
DATA pfConst<>+104(SB)/8, $0x4008000000000000
DATA pfConst<>+112(SB)/8, $0x4008000000000000
DATA pfConst<>+120(SB)/8, $0x4008000000000000
DATA pfConst<>+128(SB)/8, $0x4018000000000000
DATA pfConst<>+136(SB)/8, $0x4018000000000000
DATA pfConst<>+144(SB)/8, $0x4018000000000000
DATA pfConst<>+152(SB)/8, $0x4018000000000000
GLOBL pfConst<>(SB), RODATA|NOPTR, $160

// Lane numbers 0–3 as 64-bit integers.
DATA pfIota<>+0(SB)/8, $0
DATA pfIota<>+8(SB)/8, $1
DATA pfIota<>+16(SB)/8, $2
DATA pfIota<>+24(SB)/8, $3
GLOBL pfIota<>(SB), RODATA|NOPTR, $32

// Lane numbers 0–3 as 32-bit integers.
DATA pfIota32<>+0(SB)/4, $0
DATA pfIota32<>+4(SB)/4, $1
DATA pfIota32<>+8(SB)/4, $2
DATA pfIota32<>+12(SB)/4, $3
GLOBL pfIota32<>(SB), RODATA|NOPTR, $16

// PFPass layout: rows p_x 0, p_y 32, p_z 64, V_i 96, p_o 128/160/192, u 224, h⁻¹ 256,
// h⁻² 288, k 320, 2k 352, l 384, −l 416 (the first eight broadcast by the functions from the
// scalars at 640: p, V_i, p_o, u); the Go loop's lanes at 448; the valid lanes of the last,
// partial group at 608; the sums at 704 (W or V_b W, the gradient's three components, ‖∇‖²);
// the last group's indices at 744. Each function takes the n ≥ 1 pairs of js in groups of
// four, the last n mod 4 masked (their indices read as 0, which is valid as js[0] is), and
// keeps the sums' lanes in Y10, Y9, Y8, Y7, Y6.

// PFLOAD loads x[j] of the four indices at (SI)(AX*4) from the Vec3 array at R8: x in Y0,
// y in Y3, z in Y2 (Y1 is scratch).
#define PFLOAD \
	MOVLQSX      0(SI)(AX*4), DI \
	LEAQ         (DI)(DI*2), DI \
	MOVLQSX      4(SI)(AX*4), R13 \
	LEAQ         (R13)(R13*2), R13 \
	MOVLQSX      8(SI)(AX*4), R14 \
	LEAQ         (R14)(R14*2), R14 \
	MOVLQSX      12(SI)(AX*4), BX \
	LEAQ         (BX)(BX*2), BX \
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

// PFKERNEL: from r = (Y0, Y1, Y2) it leaves r² in Y3, W in Y14 and g in Y15 (Y4, Y5, Y11–Y13
// are scratch); R10 holds the PFPass.
#define PFKERNEL \
	VMULPD       Y0, Y0, Y3 \
	VMULPD       Y1, Y1, Y4 \
	VADDPD       Y4, Y3, Y3 \
	VMULPD       Y2, Y2, Y4 \
	VADDPD       Y4, Y3, Y3 \
	VSQRTPD      Y3, Y4 \
	VMULPD       256(R10), Y4, Y5 \
	VMULPD       pfConst<>+128(SB), Y5, Y11 \
	VMULPD       Y5, Y11, Y11 \
	VSUBPD       pfConst<>+0(SB), Y5, Y12 \
	VMULPD       Y12, Y11, Y11 \
	VADDPD       pfConst<>+0(SB), Y11, Y11 \
	VMULPD       320(R10), Y11, Y11 \
	VMULPD       pfConst<>+96(SB), Y5, Y12 \
	VSUBPD       pfConst<>+64(SB), Y12, Y12 \
	VMULPD       384(R10), Y12, Y12 \
	VMULPD       288(R10), Y12, Y12 \
	VMOVUPD      pfConst<>+0(SB), Y13 \
	VSUBPD       Y5, Y13, Y13 \
	VMULPD       352(R10), Y13, Y14 \
	VMULPD       Y13, Y14, Y14 \
	VMULPD       Y13, Y14, Y14 \
	VMULPD       416(R10), Y13, Y15 \
	VMULPD       Y13, Y15, Y15 \
	VMULPD       256(R10), Y15, Y15 \
	VDIVPD       Y4, Y15, Y15 \
	VCMPPD       $2, pfConst<>+32(SB), Y5, Y13 \
	VBLENDVPD    Y13, Y11, Y14, Y14 \
	VBLENDVPD    Y13, Y12, Y15, Y15 \
	VCMPPD       $1, pfConst<>+0(SB), Y5, Y13 \
	VANDPD       Y13, Y14, Y14 \
	VANDPD       Y13, Y15, Y15

// PFSUMSM is PFSUMS for the last, partial group: each added term is kept in the valid lanes
// (mask at 608(R10)) and +0 elsewhere, and g is stored in the valid lanes only.
#define PFSUMSM \
	VANDPD       608(R10), Y14, Y14 \
	VADDPD       Y14, Y10, Y10 \
	VMULPD       96(R10), Y15, Y15 \
	VMOVUPD      608(R10), Y5 \
	VMASKMOVPD   Y15, Y5, (DX)(AX*8) \
	VMULPD       Y15, Y0, Y4 \
	VANDPD       Y5, Y4, Y4 \
	VADDPD       Y4, Y9, Y9 \
	VMULPD       Y15, Y1, Y4 \
	VANDPD       Y5, Y4, Y4 \
	VADDPD       Y4, Y8, Y8 \
	VMULPD       Y15, Y2, Y4 \
	VANDPD       Y5, Y4, Y4 \
	VADDPD       Y4, Y7, Y7 \
	VMULPD       Y15, Y15, Y4 \
	VMULPD       Y3, Y4, Y4 \
	VANDPD       Y5, Y4, Y4 \
	VADDPD       Y4, Y6, Y6

// PFTAIL prepares the last, partial group: the lanes below n − AX valid (mask stored at
// 608(R10)), the group's indices copied to 744(R10) (0 in the other lanes), and SI moved so
// that (SI)(AX*4) reads them.
#define PFTAIL \
	MOVQ         CX, BX \
	SUBQ         AX, BX \
	VMOVQ        BX, X4 \
	VPBROADCASTD X4, X5 \
	VPCMPGTD     pfIota32<>(SB), X5, X5 \
	VPMASKMOVD   (SI)(AX*4), X5, X5 \
	VMOVDQU      X5, 744(R10) \
	VPBROADCASTQ X4, Y4 \
	VPCMPGTQ     pfIota<>(SB), Y4, Y4 \
	VMOVDQU      Y4, 608(R10) \
	LEAQ         744(R10), SI \
	LEAQ         (AX*4), BX \
	SUBQ         BX, SI

// PFBCAST broadcasts the scalars p and V_i at 640(R10) to their rows; PFBCAST8 also p_o and u.
#define PFBCAST \
	VBROADCASTSD 640(R10), Y0 \
	VMOVUPD      Y0, 0(R10) \
	VBROADCASTSD 648(R10), Y0 \
	VMOVUPD      Y0, 32(R10) \
	VBROADCASTSD 656(R10), Y0 \
	VMOVUPD      Y0, 64(R10) \
	VBROADCASTSD 664(R10), Y0 \
	VMOVUPD      Y0, 96(R10)

#define PFBCAST8 \
	PFBCAST \
	VBROADCASTSD 672(R10), Y0 \
	VMOVUPD      Y0, 128(R10) \
	VBROADCASTSD 680(R10), Y0 \
	VMOVUPD      Y0, 160(R10) \
	VBROADCASTSD 688(R10), Y0 \
	VMOVUPD      Y0, 192(R10) \
	VBROADCASTSD 696(R10), Y0 \
	VMOVUPD      Y0, 224(R10)

#define PFZERO \
	VXORPD       Y6, Y6, Y6 \
	VXORPD       Y7, Y7, Y7 \
	VXORPD       Y8, Y8, Y8 \
	VXORPD       Y9, Y9, Y9 \
	VXORPD       Y10, Y10, Y10

// PFREDUCE stores (l₀ + l₁) + (l₂ + l₃) of the lanes of Y at OFF(R10); PFREDUCE5 those of
// the five sums' lanes.
#define PFREDUCE(Y, X, OFF) \
	VHADDPD      Y, Y, Y \
	VEXTRACTF128 $1, Y, X0 \
	VADDSD       X0, X, X0 \
	VMOVSD       X0, OFF(R10)

#define PFREDUCE5 \
	PFREDUCE(Y10, X10, 704) \
	PFREDUCE(Y9, X9, 712) \
	PFREDUCE(Y8, X8, 720) \
	PFREDUCE(Y7, X7, 728) \
	PFREDUCE(Y6, X6, 736)

// PFSUMS scales g by V_i, stores it at (DX)(AX*8) and adds W, V_i g r and (V_i g)² r² into the
// lanes Y10, Y9, Y8, Y7, Y6.
#define PFSUMS \
	VADDPD       Y14, Y10, Y10 \
	VMULPD       96(R10), Y15, Y15 \
	VMOVUPD      Y15, (DX)(AX*8) \
	VMULPD       Y15, Y0, Y4 \
	VADDPD       Y4, Y9, Y9 \
	VMULPD       Y15, Y1, Y4 \
	VADDPD       Y4, Y8, Y8 \
	VMULPD       Y15, Y2, Y4 \
	VADDPD       Y4, Y7, Y7 \
	VMULPD       Y15, Y15, Y4 \
	VMULPD       Y3, Y4, Y4 \
	VADDPD       Y4, Y6, Y6

// func pfFirstAVX(js *int32, n int, x *mgl64.Vec3, gx, gy, gz, pg *float64, a *PFPass)
TEXT ·pfFirstAVX(SB), NOSPLIT, $0-64
	MOVQ    js+0(FP), SI
	MOVQ    n+8(FP), CX
	MOVQ    x+16(FP), R8
	MOVQ    gx+24(FP), R9
	MOVQ    gy+32(FP), R11
	MOVQ    gz+40(FP), R12
	MOVQ    pg+48(FP), DX
	MOVQ    a+56(FP), R10
	PFBCAST
	PFZERO
	XORQ    AX, AX

	PCALIGN $32
floop:
	LEAQ    4(AX), BX
	CMPQ    BX, CX
	JGT     ftail
	PFLOAD
	VMOVUPD 0(R10), Y4
	VSUBPD  Y0, Y4, Y0
	VMOVUPD 32(R10), Y4
	VSUBPD  Y3, Y4, Y1
	VMOVUPD 64(R10), Y4
	VSUBPD  Y2, Y4, Y2
	PFKERNEL
	VMULPD  Y15, Y0, Y4
	VMOVUPD Y4, (R9)(AX*8)
	VMULPD  Y15, Y1, Y4
	VMOVUPD Y4, (R11)(AX*8)
	VMULPD  Y15, Y2, Y4
	VMOVUPD Y4, (R12)(AX*8)
	PFSUMS
	ADDQ    $4, AX
	JMP     floop

ftail:
	CMPQ    AX, CX
	JGE     fdone
	PFTAIL
	PFLOAD
	VMOVUPD 0(R10), Y4
	VSUBPD  Y0, Y4, Y0
	VMOVUPD 32(R10), Y4
	VSUBPD  Y3, Y4, Y1
	VMOVUPD 64(R10), Y4
	VSUBPD  Y2, Y4, Y2
	PFKERNEL
	VMOVUPD    608(R10), Y5
	VMULPD     Y15, Y0, Y4
	VMASKMOVPD Y4, Y5, (R9)(AX*8)
	VMULPD     Y15, Y1, Y4
	VMASKMOVPD Y4, Y5, (R11)(AX*8)
	VMULPD     Y15, Y2, Y4
	VMASKMOVPD Y4, Y5, (R12)(AX*8)
	PFSUMSM

fdone:
	PFREDUCE5
	VZEROUPPER
	RET

// PFMOVE moves component c of the four neighbours (x[j]_c in XJ, displacement at (DREG)(AX*8),
// u pg in Y4) and leaves r_c = (p_c − x[j]_c) − d_c in XJ: d += u((p_o − x[j]) − d).
#define PFMOVE(XJ, DREG, PO, P) \
	VMOVUPD      PO(R10), Y5 \
	VSUBPD       XJ, Y5, Y5 \
	VMOVUPD      (DREG)(AX*8), Y11 \
	VSUBPD       Y11, Y5, Y5 \
	VMULPD       Y5, Y4, Y5 \
	VADDPD       Y5, Y11, Y11 \
	VMOVUPD      Y11, (DREG)(AX*8) \
	VMOVUPD      P(R10), Y5 \
	VSUBPD       XJ, Y5, Y5 \
	VSUBPD       Y11, Y5, XJ

// PFMOVEM is PFMOVE for the last, partial group: the displacements are read and written in
// the valid lanes only.
#define PFMOVEM(XJ, DREG, PO, P) \
	VMOVUPD      608(R10), Y12 \
	VMOVUPD      PO(R10), Y5 \
	VSUBPD       XJ, Y5, Y5 \
	VMASKMOVPD   (DREG)(AX*8), Y12, Y11 \
	VSUBPD       Y11, Y5, Y5 \
	VMULPD       Y5, Y4, Y5 \
	VADDPD       Y5, Y11, Y11 \
	VMASKMOVPD   Y11, Y12, (DREG)(AX*8) \
	VMOVUPD      P(R10), Y5 \
	VSUBPD       XJ, Y5, Y5 \
	VSUBPD       Y11, Y5, XJ

// func pfNextAVX(js *int32, n int, x *mgl64.Vec3, dx, dy, dz, pg *float64, a *PFPass)
TEXT ·pfNextAVX(SB), NOSPLIT, $0-64
	MOVQ    js+0(FP), SI
	MOVQ    n+8(FP), CX
	MOVQ    x+16(FP), R8
	MOVQ    dx+24(FP), R9
	MOVQ    dy+32(FP), R11
	MOVQ    dz+40(FP), R12
	MOVQ    pg+48(FP), DX
	MOVQ    a+56(FP), R10
	PFBCAST8
	PFZERO
	XORQ    AX, AX

	PCALIGN $32
nloop:
	LEAQ    4(AX), BX
	CMPQ    BX, CX
	JGT     ntail
	PFLOAD
	VMOVUPD Y3, Y1
	VMOVUPD (DX)(AX*8), Y4
	VMULPD  224(R10), Y4, Y4
	PFMOVE(Y0, R9, 128, 0)
	PFMOVE(Y1, R11, 160, 32)
	PFMOVE(Y2, R12, 192, 64)
	PFKERNEL
	PFSUMS
	ADDQ    $4, AX
	JMP     nloop

ntail:
	CMPQ    AX, CX
	JGE     ndone
	PFTAIL
	PFLOAD
	VMOVUPD    Y3, Y1
	VMOVUPD    608(R10), Y5
	VMASKMOVPD (DX)(AX*8), Y5, Y4
	VMULPD     224(R10), Y4, Y4
	PFMOVEM(Y0, R9, 128, 0)
	PFMOVEM(Y1, R11, 160, 32)
	PFMOVEM(Y2, R12, 192, 64)
	PFKERNEL
	PFSUMSM

ndone:
	PFREDUCE5
	VZEROUPPER
	RET

// PFWALL: from x[j] (PFLOAD) and the volumes vol[j] at DX it leaves V_b W in Y14 and
// V_b g r in Y0, Y1, Y2.
#define PFWALL \
	VMOVUPD      0(R10), Y4 \
	VSUBPD       Y0, Y4, Y0 \
	VMOVUPD      32(R10), Y4 \
	VSUBPD       Y3, Y4, Y1 \
	VMOVUPD      64(R10), Y4 \
	VSUBPD       Y2, Y4, Y2 \
	PFKERNEL \
	MOVLQSX      0(SI)(AX*4), DI \
	MOVLQSX      4(SI)(AX*4), R13 \
	MOVLQSX      8(SI)(AX*4), R14 \
	MOVLQSX      12(SI)(AX*4), BX \
	VMOVSD       (DX)(DI*8), X4 \
	VMOVHPD      (DX)(R13*8), X4, X4 \
	VMOVSD       (DX)(R14*8), X5 \
	VMOVHPD      (DX)(BX*8), X5, X5 \
	VINSERTF128  $1, X5, Y4, Y4 \
	VMULPD       Y14, Y4, Y14 \
	VMULPD       Y4, Y15, Y15 \
	VMULPD       Y15, Y0, Y0 \
	VMULPD       Y15, Y1, Y1 \
	VMULPD       Y15, Y2, Y2

// func pfWallsAVX(js *int32, n int, x *mgl64.Vec3, vol, gx, gy, gz *float64, store int, a *PFPass)
TEXT ·pfWallsAVX(SB), NOSPLIT, $0-72
	MOVQ    js+0(FP), SI
	MOVQ    n+8(FP), CX
	MOVQ    x+16(FP), R8
	MOVQ    vol+24(FP), DX
	MOVQ    gx+32(FP), R9
	MOVQ    gy+40(FP), R11
	MOVQ    gz+48(FP), R12
	MOVQ    a+64(FP), R10
	PFBCAST
	PFZERO
	XORQ    AX, AX

	PCALIGN $32
wloop:
	LEAQ    4(AX), BX
	CMPQ    BX, CX
	JGT     wtail
	PFLOAD
	PFWALL
	CMPQ         store+56(FP), $0
	JEQ          wsum
	VMOVUPD      Y0, (R9)(AX*8)
	VMOVUPD      Y1, (R11)(AX*8)
	VMOVUPD      Y2, (R12)(AX*8)

wsum:
	VADDPD       Y14, Y10, Y10
	VADDPD       Y0, Y9, Y9
	VADDPD       Y1, Y8, Y8
	VADDPD       Y2, Y7, Y7
	ADDQ         $4, AX
	JMP          wloop

wtail:
	CMPQ    AX, CX
	JGE     wdone
	PFTAIL
	PFLOAD
	PFWALL
	VMOVUPD      608(R10), Y5
	VANDPD       Y5, Y14, Y14
	VANDPD       Y5, Y0, Y0
	VANDPD       Y5, Y1, Y1
	VANDPD       Y5, Y2, Y2
	CMPQ         store+56(FP), $0
	JEQ          wtsum
	VMASKMOVPD   Y0, Y5, (R9)(AX*8)
	VMASKMOVPD   Y1, Y5, (R11)(AX*8)
	VMASKMOVPD   Y2, Y5, (R12)(AX*8)

wtsum:
	VADDPD       Y14, Y10, Y10
	VADDPD       Y0, Y9, Y9
	VADDPD       Y1, Y8, Y8
	VADDPD       Y2, Y7, Y7

wdone:
	PFREDUCE(Y10, X10, 704)
	PFREDUCE(Y9, X9, 712)
	PFREDUCE(Y8, X8, 720)
	PFREDUCE(Y7, X7, 728)
	VZEROUPPER
	RET

// func pfMoveAVX(js *int32, n int, x *mgl64.Vec3, dx, dy, dz, pg *float64, a *PFPass)
TEXT ·pfMoveAVX(SB), NOSPLIT, $0-64
	MOVQ    js+0(FP), SI
	MOVQ    n+8(FP), CX
	MOVQ    x+16(FP), R8
	MOVQ    dx+24(FP), R9
	MOVQ    dy+32(FP), R11
	MOVQ    dz+40(FP), R12
	MOVQ    pg+48(FP), DX
	MOVQ    a+56(FP), R10
	PFBCAST8
	XORQ    AX, AX

	PCALIGN $32
mloop:
	LEAQ    4(AX), BX
	CMPQ    BX, CX
	JGT     mtail
	PFLOAD
	VMOVUPD Y3, Y1
	VMOVUPD (DX)(AX*8), Y4
	VMULPD  224(R10), Y4, Y4
	PFMOVE(Y0, R9, 128, 0)
	PFMOVE(Y1, R11, 160, 32)
	PFMOVE(Y2, R12, 192, 64)
	ADDQ    $4, AX
	JMP     mloop

mtail:
	CMPQ       AX, CX
	JGE        mdone
	PFTAIL
	PFLOAD
	VMOVUPD    Y3, Y1
	VMOVUPD    608(R10), Y5
	VMASKMOVPD (DX)(AX*8), Y5, Y4
	VMULPD     224(R10), Y4, Y4
	PFMOVEM(Y0, R9, 128, 0)
	PFMOVEM(Y1, R11, 160, 32)
	PFMOVEM(Y2, R12, 192, 64)

mdone:
	VZEROUPPER
	RET

// PFDOTS adds (g_x d_x + g_y d_y) + g_z d_z and (d_x² + d_y²) + d_z² (g in Y0–Y2, d in
// Y3–Y5) to Y6 and Y7.
#define PFDOTS \
	VMULPD       Y3, Y0, Y0 \
	VMULPD       Y4, Y1, Y1 \
	VADDPD       Y1, Y0, Y0 \
	VMULPD       Y5, Y2, Y2 \
	VADDPD       Y2, Y0, Y0 \
	VADDPD       Y0, Y6, Y6 \
	VMULPD       Y3, Y3, Y3 \
	VMULPD       Y4, Y4, Y4 \
	VADDPD       Y4, Y3, Y3 \
	VMULPD       Y5, Y5, Y5 \
	VADDPD       Y5, Y3, Y3 \
	VADDPD       Y3, Y7, Y7

// func pfDotsAVX(n int, gx, gy, gz, dx, dy, dz *float64, out *[2][4]float64)
TEXT ·pfDotsAVX(SB), NOSPLIT, $0-64
	MOVQ    n+0(FP), CX
	MOVQ    gx+8(FP), SI
	MOVQ    gy+16(FP), DI
	MOVQ    gz+24(FP), R8
	MOVQ    dx+32(FP), R9
	MOVQ    dy+40(FP), R11
	MOVQ    dz+48(FP), R12
	MOVQ    out+56(FP), R10
	VXORPD  Y6, Y6, Y6
	VXORPD  Y7, Y7, Y7
	XORQ    AX, AX

	PCALIGN $32
sloop:
	LEAQ    4(AX), BX
	CMPQ    BX, CX
	JGT     stail
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD (DI)(AX*8), Y1
	VMOVUPD (R8)(AX*8), Y2
	VMOVUPD (R9)(AX*8), Y3
	VMOVUPD (R11)(AX*8), Y4
	VMOVUPD (R12)(AX*8), Y5
	PFDOTS
	ADDQ    $4, AX
	JMP     sloop

stail:
	CMPQ         AX, CX
	JGE          sdone
	MOVQ         CX, BX
	SUBQ         AX, BX
	VMOVQ        BX, X15
	VPBROADCASTQ X15, Y15
	VPCMPGTQ     pfIota<>(SB), Y15, Y15
	VMASKMOVPD   (SI)(AX*8), Y15, Y0
	VMASKMOVPD   (DI)(AX*8), Y15, Y1
	VMASKMOVPD   (R8)(AX*8), Y15, Y2
	VMASKMOVPD   (R9)(AX*8), Y15, Y3
	VMASKMOVPD   (R11)(AX*8), Y15, Y4
	VMASKMOVPD   (R12)(AX*8), Y15, Y5
	PFDOTS

sdone:
	VMOVUPD Y6, 0(R10)
	VMOVUPD Y7, 32(R10)
	VZEROUPPER
	RET

// The gathers of Projective Fluids' residual and matrix product (PFResidSums, PFGatherSum,
// PFDotSum): n ≥ 1 pairs in groups of four, the last n mod 4 with the lanes past n masked: their gradients load as +0, so their terms are zeros,
// which leave a lane's sum as it is. Y15 holds the mask of the last group.


// PFGTAIL: the mask of the lanes below n − AX in Y15, the last group's indices copied to the
// start of out (R10; 0 in the other lanes, valid as js[0] is), and SI moved so that
// (SI)(AX*4) reads them there.
#define PFGTAIL \
	MOVQ         CX, BX \
	SUBQ         AX, BX \
	VMOVQ        BX, X14 \
	VPBROADCASTD X14, X13 \
	VPCMPGTD     pfIota32<>(SB), X13, X13 \
	VPMASKMOVD   (SI)(AX*4), X13, X13 \
	VMOVDQU      X13, (R10) \
	VPBROADCASTQ X14, Y15 \
	VPCMPGTQ     pfIota<>(SB), Y15, Y15 \
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
	PFLOAD
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
	PFLOAD
	VMASKMOVPD (R9)(AX*8), Y15, Y4
	VMASKMOVPD (R11)(AX*8), Y15, Y5
	VMASKMOVPD (R12)(AX*8), Y15, Y12
	PFDOT

ddone:
	VMOVUPD Y6, 0(R10)
	VZEROUPPER
	RET
