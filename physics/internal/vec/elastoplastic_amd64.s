//go:build !purego

#include "textflag.h"

// Lane numbers 0-3, as 64-bit integers: lane l of a step is valid when l < n − k.
DATA laneIota<>+0(SB)/8, $0
DATA laneIota<>+8(SB)/8, $1
DATA laneIota<>+16(SB)/8, $2
DATA laneIota<>+24(SB)/8, $3
GLOBL laneIota<>(SB), RODATA|NOPTR, $32

// func fitSumsAVX(js *int32, n int, x, y *mgl64.Vec3, xi, yi *mgl64.Vec3, h2 float64, acc *[15][4]float64) int
//
// Four neighbours a step, one per lane. The four rows x[j] (and y[j]) are loaded as their
// first two components and their third and transposed into one register per component
// (loads and shuffles: the processors' gather instructions are slow where the 2023 gather
// mitigation is in force). The caller provides whole groups of four valid indices; the lanes
// past n are masked off. A lane inside the support (r² not ≥ h², unordered included) keeps its
// weight and offsets; the others are zeroed, so they add +0 to each sum, which leaves it
// unchanged (a sum that starts at +0 never becomes −0). The sums live in acc and are added to
// in place; the same products and sums per lane as the Go loop.
TEXT ·fitSumsAVX(SB), NOSPLIT, $0-72
	MOVQ         js+0(FP), SI
	MOVQ         n+8(FP), CX
	MOVQ         x+16(FP), R8
	MOVQ         y+24(FP), R9
	MOVQ         xi+32(FP), R11
	MOVQ         yi+40(FP), R12
	VBROADCASTSD h2+48(FP), Y13
	MOVQ         acc+56(FP), DX
	VMOVDQU      laneIota<>(SB), Y12
	XORQ         R10, R10
	XORQ         AX, AX

floop:
	CMPQ         AX, CX
	JGE          fdone
	MOVLQSX      0(SI)(AX*4), DI
	LEAQ         (DI)(DI*2), DI
	MOVLQSX      4(SI)(AX*4), R13
	LEAQ         (R13)(R13*2), R13
	MOVLQSX      8(SI)(AX*4), R14
	LEAQ         (R14)(R14*2), R14
	MOVLQSX      12(SI)(AX*4), BX
	LEAQ         (BX)(BX*2), BX      // 3j of the four rows: row j is at 8·3j
	// x rows → Y0, Y1, Y2 (components 0, 1, 2 of the four neighbours)
	VMOVUPD      (R8)(DI*8), X0
	VMOVUPD      (R8)(R13*8), X1
	VINSERTF128  $1, (R8)(R14*8), Y0, Y0
	VINSERTF128  $1, (R8)(BX*8), Y1, Y1
	VMOVSD       16(R8)(DI*8), X2
	VMOVHPD      16(R8)(R13*8), X2, X2
	VMOVSD       16(R8)(R14*8), X3
	VMOVHPD      16(R8)(BX*8), X3, X3
	VINSERTF128  $1, X3, Y2, Y2
	VUNPCKHPD    Y1, Y0, Y3
	VUNPCKLPD    Y1, Y0, Y0
	VMOVAPD      Y3, Y1
	// y rows → Y7, Y11, Y14
	VMOVUPD      (R9)(DI*8), X7
	VMOVUPD      (R9)(R13*8), X8
	VINSERTF128  $1, (R9)(R14*8), Y7, Y7
	VINSERTF128  $1, (R9)(BX*8), Y8, Y8
	VMOVSD       16(R9)(DI*8), X14
	VMOVHPD      16(R9)(R13*8), X14, X14
	VMOVSD       16(R9)(R14*8), X9
	VMOVHPD      16(R9)(BX*8), X9, X9
	VINSERTF128  $1, X9, Y14, Y14
	VUNPCKHPD    Y8, Y7, Y11
	VUNPCKLPD    Y8, Y7, Y7
	MOVQ         CX, BX
	SUBQ         AX, BX
	VMOVQ        BX, X5
	VPBROADCASTQ X5, Y5
	VPCMPGTQ     Y12, Y5, Y5         // valid lanes: n − k > l
	VBROADCASTSD (R11), Y8
	VSUBPD       Y8, Y0, Y0          // d0
	VBROADCASTSD 8(R11), Y8
	VSUBPD       Y8, Y1, Y1          // d1
	VBROADCASTSD 16(R11), Y8
	VSUBPD       Y8, Y2, Y2          // d2
	VMULPD       Y0, Y0, Y3
	VMULPD       Y1, Y1, Y4
	VADDPD       Y4, Y3, Y3
	VMULPD       Y2, Y2, Y4
	VADDPD       Y4, Y3, Y3          // r²
	VCMPPD       $0x19, Y13, Y3, Y6  // not r² ≥ h²
	VANDPD       Y5, Y6, Y6          // counted lanes
	VMOVMSKPD    Y6, BX
	POPCNTL      BX, BX
	ADDQ         BX, R10
	VSUBPD       Y3, Y13, Y3         // q = h² − r²
	VMULPD       Y3, Y3, Y4
	VMULPD       Y3, Y4, Y4          // w = (q·q)·q
	VMULPD       Y4, Y4, Y4          // ω = w·w
	VANDPD       Y6, Y4, Y4
	VANDPD       Y6, Y0, Y0
	VANDPD       Y6, Y1, Y1
	VANDPD       Y6, Y2, Y2
	VBROADCASTSD (R12), Y8
	VSUBPD       Y8, Y7, Y7
	VANDPD       Y6, Y7, Y7          // e0
	VBROADCASTSD 8(R12), Y8
	VSUBPD       Y8, Y11, Y11
	VANDPD       Y6, Y11, Y11        // e1
	VBROADCASTSD 16(R12), Y8
	VSUBPD       Y8, Y14, Y14
	VANDPD       Y6, Y14, Y14        // e2

	VMULPD       Y0, Y4, Y5          // t = ω·d0
	VMULPD       Y0, Y5, Y8
	VADDPD       0(DX), Y8, Y8
	VMOVUPD      Y8, 0(DX)
	VMULPD       Y1, Y5, Y8
	VADDPD       32(DX), Y8, Y8
	VMOVUPD      Y8, 32(DX)
	VMULPD       Y2, Y5, Y8
	VADDPD       64(DX), Y8, Y8
	VMOVUPD      Y8, 64(DX)
	VMULPD       Y1, Y4, Y5          // t = ω·d1
	VMULPD       Y1, Y5, Y8
	VADDPD       96(DX), Y8, Y8
	VMOVUPD      Y8, 96(DX)
	VMULPD       Y2, Y5, Y8
	VADDPD       128(DX), Y8, Y8
	VMOVUPD      Y8, 128(DX)
	VMULPD       Y2, Y4, Y5          // t = ω·d2
	VMULPD       Y2, Y5, Y8
	VADDPD       160(DX), Y8, Y8
	VMOVUPD      Y8, 160(DX)

	VMULPD       Y7, Y4, Y5          // t = ω·e0
	VMULPD       Y0, Y5, Y8
	VADDPD       192(DX), Y8, Y8
	VMOVUPD      Y8, 192(DX)
	VMULPD       Y1, Y5, Y8
	VADDPD       224(DX), Y8, Y8
	VMOVUPD      Y8, 224(DX)
	VMULPD       Y2, Y5, Y8
	VADDPD       256(DX), Y8, Y8
	VMOVUPD      Y8, 256(DX)

	VMULPD       Y11, Y4, Y5          // t = ω·e1
	VMULPD       Y0, Y5, Y8
	VADDPD       288(DX), Y8, Y8
	VMOVUPD      Y8, 288(DX)
	VMULPD       Y1, Y5, Y8
	VADDPD       320(DX), Y8, Y8
	VMOVUPD      Y8, 320(DX)
	VMULPD       Y2, Y5, Y8
	VADDPD       352(DX), Y8, Y8
	VMOVUPD      Y8, 352(DX)

	VMULPD       Y14, Y4, Y5          // t = ω·e2
	VMULPD       Y0, Y5, Y8
	VADDPD       384(DX), Y8, Y8
	VMOVUPD      Y8, 384(DX)
	VMULPD       Y1, Y5, Y8
	VADDPD       416(DX), Y8, Y8
	VMOVUPD      Y8, 416(DX)
	VMULPD       Y2, Y5, Y8
	VADDPD       448(DX), Y8, Y8
	VMOVUPD      Y8, 448(DX)

	ADDQ         $4, AX
	JMP          floop

fdone:
	MOVQ         R10, ret+64(FP)
	VZEROUPPER
	RET

// The coefficients of CosQuarterSq in four lanes each: 1, then c1 … c10 (their bits).
DATA cosTab<>+0(SB)/8, $0x3ff0000000000000 // 1
DATA cosTab<>+8(SB)/8, $0x3ff0000000000000
DATA cosTab<>+16(SB)/8, $0x3ff0000000000000
DATA cosTab<>+24(SB)/8, $0x3ff0000000000000
DATA cosTab<>+32(SB)/8, $0xbfe0000000000000 // c1
DATA cosTab<>+40(SB)/8, $0xbfe0000000000000
DATA cosTab<>+48(SB)/8, $0xbfe0000000000000
DATA cosTab<>+56(SB)/8, $0xbfe0000000000000
DATA cosTab<>+64(SB)/8, $0x3fa5555555555555 // c2
DATA cosTab<>+72(SB)/8, $0x3fa5555555555555
DATA cosTab<>+80(SB)/8, $0x3fa5555555555555
DATA cosTab<>+88(SB)/8, $0x3fa5555555555555
DATA cosTab<>+96(SB)/8, $0xbf56c16c16c16c17 // c3
DATA cosTab<>+104(SB)/8, $0xbf56c16c16c16c17
DATA cosTab<>+112(SB)/8, $0xbf56c16c16c16c17
DATA cosTab<>+120(SB)/8, $0xbf56c16c16c16c17
DATA cosTab<>+128(SB)/8, $0x3efa01a01a01a01a // c4
DATA cosTab<>+136(SB)/8, $0x3efa01a01a01a01a
DATA cosTab<>+144(SB)/8, $0x3efa01a01a01a01a
DATA cosTab<>+152(SB)/8, $0x3efa01a01a01a01a
DATA cosTab<>+160(SB)/8, $0xbe927e4fb7789f5c // c5
DATA cosTab<>+168(SB)/8, $0xbe927e4fb7789f5c
DATA cosTab<>+176(SB)/8, $0xbe927e4fb7789f5c
DATA cosTab<>+184(SB)/8, $0xbe927e4fb7789f5c
DATA cosTab<>+192(SB)/8, $0x3e21eed8eff8d898 // c6
DATA cosTab<>+200(SB)/8, $0x3e21eed8eff8d898
DATA cosTab<>+208(SB)/8, $0x3e21eed8eff8d898
DATA cosTab<>+216(SB)/8, $0x3e21eed8eff8d898
DATA cosTab<>+224(SB)/8, $0xbda93974a8c07c9d // c7
DATA cosTab<>+232(SB)/8, $0xbda93974a8c07c9d
DATA cosTab<>+240(SB)/8, $0xbda93974a8c07c9d
DATA cosTab<>+248(SB)/8, $0xbda93974a8c07c9d
DATA cosTab<>+256(SB)/8, $0x3d2ae7f3e733b81f // c8
DATA cosTab<>+264(SB)/8, $0x3d2ae7f3e733b81f
DATA cosTab<>+272(SB)/8, $0x3d2ae7f3e733b81f
DATA cosTab<>+280(SB)/8, $0x3d2ae7f3e733b81f
DATA cosTab<>+288(SB)/8, $0xbca6827863b97d97 // c9
DATA cosTab<>+296(SB)/8, $0xbca6827863b97d97
DATA cosTab<>+304(SB)/8, $0xbca6827863b97d97
DATA cosTab<>+312(SB)/8, $0xbca6827863b97d97
DATA cosTab<>+320(SB)/8, $0x3c1e542ba4020225 // c10
DATA cosTab<>+328(SB)/8, $0x3c1e542ba4020225
DATA cosTab<>+336(SB)/8, $0x3c1e542ba4020225
DATA cosTab<>+344(SB)/8, $0x3c1e542ba4020225
GLOBL cosTab<>(SB), RODATA|NOPTR, $352

// func pairScalarsAVX(js *int32, n int, x *mgl64.Vec3, ps, u0, u1, u2 *float64, p *PairArgs)
//
// Four pairs a step, one per lane, the rows x[j] loaded and transposed as in fitSumsAVX (the
// caller provides whole groups of four valid indices; ps and u0-u2 have room for them). The
// constants are read from the rows of p.broadcast, the sums added to p.acc in place. Lanes
// outside the support or past n are zeroed before the sums, so they add +0 (which leaves a sum
// that starts at +0 unchanged); the same operations per lane as the Go loop.
// PairArgs: A at 0, broadcast rows at 128 (A 128-384, Xi 416-480, H 512, −c 544,
// (π/(2h))² 576, −v 608), acc at 640.
TEXT ·pairScalarsAVX(SB), NOSPLIT, $0-64
	MOVQ         js+0(FP), SI
	MOVQ         n+8(FP), CX
	MOVQ         x+16(FP), R8
	MOVQ         ps+24(FP), R9
	MOVQ         u0+32(FP), R11
	MOVQ         u1+40(FP), R12
	MOVQ         u2+48(FP), DX
	MOVQ         p+56(FP), R10
	XORQ         AX, AX

sloop:
	CMPQ         AX, CX
	JGE          sdone
	MOVLQSX      0(SI)(AX*4), DI
	LEAQ         (DI)(DI*2), DI
	MOVLQSX      4(SI)(AX*4), R13
	LEAQ         (R13)(R13*2), R13
	MOVLQSX      8(SI)(AX*4), R14
	LEAQ         (R14)(R14*2), R14
	MOVLQSX      12(SI)(AX*4), BX
	LEAQ         (BX)(BX*2), BX
	VMOVUPD      (R8)(DI*8), X0
	VMOVUPD      (R8)(R13*8), X1
	VINSERTF128  $1, (R8)(R14*8), Y0, Y0
	VINSERTF128  $1, (R8)(BX*8), Y1, Y1
	VMOVSD       16(R8)(DI*8), X2
	VMOVHPD      16(R8)(R13*8), X2, X2
	VMOVSD       16(R8)(R14*8), X3
	VMOVHPD      16(R8)(BX*8), X3, X3
	VINSERTF128  $1, X3, Y2, Y2
	VUNPCKHPD    Y1, Y0, Y3
	VUNPCKLPD    Y1, Y0, Y0
	VMOVUPD      416(R10), Y4
	VSUBPD       Y0, Y4, Y0          // r0 = xi0 − x0
	VMOVUPD      448(R10), Y4
	VSUBPD       Y3, Y4, Y1          // r1
	VMOVUPD      480(R10), Y4
	VSUBPD       Y2, Y4, Y2          // r2
	VMULPD       128(R10), Y0, Y3
	VMULPD       160(R10), Y1, Y6
	VADDPD       Y6, Y3, Y3
	VMULPD       192(R10), Y2, Y6
	VADDPD       Y6, Y3, Y3          // u0
	VMULPD       224(R10), Y0, Y4
	VMULPD       256(R10), Y1, Y6
	VADDPD       Y6, Y4, Y4
	VMULPD       288(R10), Y2, Y6
	VADDPD       Y6, Y4, Y4          // u1
	VMULPD       320(R10), Y0, Y5
	VMULPD       352(R10), Y1, Y6
	VADDPD       Y6, Y5, Y5
	VMULPD       384(R10), Y2, Y6
	VADDPD       Y6, Y5, Y5          // u2
	VMOVUPD      Y3, (R11)(AX*8)
	VMOVUPD      Y4, (R12)(AX*8)
	VMOVUPD      Y5, (DX)(AX*8)
	VMULPD       Y3, Y3, Y6
	VMULPD       Y4, Y4, Y7
	VADDPD       Y7, Y6, Y6
	VMULPD       Y5, Y5, Y7
	VADDPD       Y7, Y6, Y6          // ρ²
	VSQRTPD      Y6, Y7              // ρ
	VCMPPD       $0x11, 512(R10), Y7, Y8 // ρ < h
	VXORPD       Y9, Y9, Y9
	VCMPPD       $0x0c, Y9, Y7, Y9   // ρ ≠ 0
	VANDPD       Y9, Y8, Y8
	VMULPD       576(R10), Y6, Y9    // y = ρ²(π/(2h))²
	VMULPD       Y9, Y9, Y10         // y²
	VMULPD       Y10, Y10, Y11       // y⁴
	VMULPD       cosTab<>+32(SB), Y9, Y12
	VADDPD       cosTab<>+0(SB), Y12, Y12   // a0 = 1 + c1 y
	VMULPD       cosTab<>+96(SB), Y9, Y13
	VADDPD       cosTab<>+64(SB), Y13, Y13  // a1 = c2 + c3 y
	VMULPD       Y10, Y13, Y13
	VADDPD       Y13, Y12, Y12              // b0 = a0 + a1 y²
	VMULPD       cosTab<>+160(SB), Y9, Y13
	VADDPD       cosTab<>+128(SB), Y13, Y13 // a2 = c4 + c5 y
	VMULPD       cosTab<>+224(SB), Y9, Y14
	VADDPD       cosTab<>+192(SB), Y14, Y14 // a3 = c6 + c7 y
	VMULPD       Y10, Y14, Y14
	VADDPD       Y14, Y13, Y13              // b1 = a2 + a3 y²
	VMULPD       cosTab<>+288(SB), Y9, Y14
	VADDPD       cosTab<>+256(SB), Y14, Y14 // a4 = c8 + c9 y
	VMULPD       cosTab<>+320(SB), Y10, Y15
	VADDPD       Y15, Y14, Y14              // b2 = a4 + c10 y²
	VMULPD       Y14, Y11, Y14
	VADDPD       Y14, Y13, Y13              // b1 + y⁴ b2
	VMULPD       Y13, Y11, Y13
	VADDPD       Y13, Y12, Y12              // cos = b0 + y⁴(b1 + y⁴ b2)
	VMULPD       544(R10), Y12, Y12
	VDIVPD       Y7, Y12, Y12               // s = (−c cos)/ρ
	VANDPD       Y8, Y12, Y12
	VMOVUPD      Y12, (R9)(AX*8)
	MOVQ         CX, BX
	SUBQ         AX, BX
	VMOVQ        BX, X9
	VPBROADCASTQ X9, Y9
	VPCMPGTQ     laneIota<>(SB), Y9, Y9     // valid lanes: n − k > l
	VANDPD       Y9, Y8, Y8
	VMULPD       608(R10), Y12, Y12         // w = (−v)·s
	VANDPD       Y8, Y12, Y12
	VANDPD       Y8, Y3, Y3
	VANDPD       Y8, Y4, Y4
	VANDPD       Y8, Y5, Y5
	VMULPD       Y3, Y12, Y13               // t = w·u0
	VMULPD       Y3, Y13, Y14
	VADDPD       640(R10), Y14, Y14
	VMOVUPD      Y14, 640(R10)
	VMULPD       Y4, Y13, Y14
	VADDPD       672(R10), Y14, Y14
	VMOVUPD      Y14, 672(R10)
	VMULPD       Y5, Y13, Y14
	VADDPD       704(R10), Y14, Y14
	VMOVUPD      Y14, 704(R10)
	VMULPD       Y4, Y12, Y13               // t = w·u1
	VMULPD       Y4, Y13, Y14
	VADDPD       736(R10), Y14, Y14
	VMOVUPD      Y14, 736(R10)
	VMULPD       Y5, Y13, Y14
	VADDPD       768(R10), Y14, Y14
	VMOVUPD      Y14, 768(R10)
	VMULPD       Y5, Y12, Y13               // t = w·u2
	VMULPD       Y5, Y13, Y14
	VADDPD       800(R10), Y14, Y14
	VMOVUPD      Y14, 800(R10)
	ADDQ         $4, AX
	JMP          sloop

sdone:
	VZEROUPPER
	RET

// func pairTermsAVX(s, u0, u1, u2 *float64, n int, m *[9]float64, pa *mgl64.Vec3)
//
// Four pairs a step (n a multiple of 4): q = s u per lane, the three rows of M q, zeroed where
// s = 0, and the lanes' three-vectors stored one by one (low and high halves of each row).
TEXT ·pairTermsAVX(SB), NOSPLIT, $0-56
	MOVQ         s+0(FP), SI
	MOVQ         u0+8(FP), R8
	MOVQ         u1+16(FP), R9
	MOVQ         u2+24(FP), R10
	MOVQ         n+32(FP), CX
	MOVQ         m+40(FP), DX
	MOVQ         pa+48(FP), DI
	VBROADCASTSD 0(DX), Y7
	VBROADCASTSD 8(DX), Y8
	VBROADCASTSD 16(DX), Y9
	VBROADCASTSD 24(DX), Y10
	VBROADCASTSD 32(DX), Y11
	VBROADCASTSD 40(DX), Y12
	VBROADCASTSD 48(DX), Y13
	VBROADCASTSD 56(DX), Y14
	VBROADCASTSD 64(DX), Y15
	XORQ         AX, AX

tloop:
	CMPQ         AX, CX
	JGE          tdone
	VMOVUPD      (SI)(AX*8), Y0
	VXORPD       Y6, Y6, Y6
	VCMPPD       $0x04, Y6, Y0, Y6   // s ≠ 0 (unordered true)
	VMULPD       (R8)(AX*8), Y0, Y1  // q0
	VMULPD       (R9)(AX*8), Y0, Y2  // q1
	VMULPD       (R10)(AX*8), Y0, Y3 // q2
	VMULPD       Y1, Y7, Y4
	VMULPD       Y2, Y8, Y5
	VADDPD       Y5, Y4, Y4
	VMULPD       Y3, Y9, Y5
	VADDPD       Y5, Y4, Y4
	VANDPD       Y6, Y4, Y4          // row 0
	VMULPD       Y1, Y10, Y5
	VMULPD       Y2, Y11, Y0
	VADDPD       Y0, Y5, Y5
	VMULPD       Y3, Y12, Y0
	VADDPD       Y0, Y5, Y5
	VANDPD       Y6, Y5, Y5          // row 1
	VMULPD       Y1, Y13, Y1
	VMULPD       Y2, Y14, Y2
	VADDPD       Y2, Y1, Y1
	VMULPD       Y3, Y15, Y3
	VADDPD       Y3, Y1, Y1
	VANDPD       Y6, Y1, Y1          // row 2
	LEAQ         (AX)(AX*2), BX
	LEAQ         (DI)(BX*8), BX      // &pa[k]
	VMOVLPD      X4, 0(BX)
	VMOVLPD      X5, 8(BX)
	VMOVLPD      X1, 16(BX)
	VMOVHPD      X4, 24(BX)
	VMOVHPD      X5, 32(BX)
	VMOVHPD      X1, 40(BX)
	VEXTRACTF128 $1, Y4, X4
	VEXTRACTF128 $1, Y5, X5
	VEXTRACTF128 $1, Y1, X1
	VMOVLPD      X4, 48(BX)
	VMOVLPD      X5, 56(BX)
	VMOVLPD      X1, 64(BX)
	VMOVHPD      X4, 72(BX)
	VMOVHPD      X5, 80(BX)
	VMOVHPD      X1, 88(BX)
	ADDQ         $4, AX
	JMP          tloop

tdone:
	VZEROUPPER
	RET

// Constants of pairForcesAVX: the sign bit, 6, 1 and ½ in four lanes, and the offsets 3l of
// lane l's three-vector from the first (as 32-bit indices).
DATA forceConst<>+0(SB)/8, $0x8000000000000000
DATA forceConst<>+8(SB)/8, $0x8000000000000000
DATA forceConst<>+16(SB)/8, $0x8000000000000000
DATA forceConst<>+24(SB)/8, $0x8000000000000000
DATA forceConst<>+32(SB)/8, $0x4018000000000000
DATA forceConst<>+40(SB)/8, $0x4018000000000000
DATA forceConst<>+48(SB)/8, $0x4018000000000000
DATA forceConst<>+56(SB)/8, $0x4018000000000000
DATA forceConst<>+64(SB)/8, $0x3ff0000000000000
DATA forceConst<>+72(SB)/8, $0x3ff0000000000000
DATA forceConst<>+80(SB)/8, $0x3ff0000000000000
DATA forceConst<>+88(SB)/8, $0x3ff0000000000000
DATA forceConst<>+96(SB)/8, $0x3fe0000000000000
DATA forceConst<>+104(SB)/8, $0x3fe0000000000000
DATA forceConst<>+112(SB)/8, $0x3fe0000000000000
DATA forceConst<>+120(SB)/8, $0x3fe0000000000000
DATA forceConst<>+128(SB)/4, $0
DATA forceConst<>+132(SB)/4, $3
DATA forceConst<>+136(SB)/4, $6
DATA forceConst<>+140(SB)/4, $9
GLOBL forceConst<>(SB), RODATA|NOPTR, $144

// func pairForcesAVX(js, pts *int32, n int, pe, pa, x, xp *mgl64.Vec3, hf *[9]float64, a *ForceArgs)
//
// Four pairs a step, one per lane, the lanes past n masked off (the caller provides whole
// groups of four readable indices): the rows x[j], xp[j], hf[j] and pa[p] by gathers under
// the mask of the valid lanes, kept in a.mask (at 792) for the gathers to copy (indices 3j,
// 9j, 3p), the entries pe[0..3] of the row by a gather at offsets 3l, the
// constants from the rows of a.broadcast (at 152 + 32·row: HFi 0-8, Xi 9-11, XPi 12-14, K 15,
// Damp 16, InvH 17, 2k 18, k 19). The results of the valid lanes are stored lane by lane: g to
// the row's entry, −g to the transposed one. The same operations per lane as the Go loop.
TEXT ·pairForcesAVX(SB), NOSPLIT, $0-72
	MOVQ         js+0(FP), SI
	MOVQ         pts+8(FP), DI
	MOVQ         n+16(FP), CX
	MOVQ         pe+24(FP), BX
	MOVQ         pa+32(FP), R8
	MOVQ         x+40(FP), R9
	MOVQ         xp+48(FP), R10
	MOVQ         hf+56(FP), R11
	MOVQ         a+64(FP), R12
	VMOVDQU      forceConst<>+128(SB), X14 // 0, 3, 6, 9
	XORQ         AX, AX

gloop:
	CMPQ         AX, CX
	JGE          gdone
	MOVQ         CX, DX
	SUBQ         AX, DX              // pairs left
	VMOVQ        DX, X0
	VPBROADCASTQ X0, Y0
	VPCMPGTQ     laneIota<>(SB), Y0, Y0
	VMOVDQU      Y0, 792(R12)        // valid lanes
	VMOVDQU      (SI)(AX*4), X12
	VPSLLD       $3, X12, X13
	VPADDD       X12, X13, X12       // 9j
	VMOVDQU      (SI)(AX*4), X13
	VPSLLD       $1, X13, X11
	VPADDD       X11, X13, X13       // 3j
	VMOVDQU      (DI)(AX*4), X11
	VPSLLD       $1, X11, X10
	VPADDD       X10, X11, X11       // 3p

	// r = xi − x[j]
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, (R9)(X13*8), Y0
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 8(R9)(X13*8), Y1
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 16(R9)(X13*8), Y2
	VMOVUPD      440(R12), Y3
	VSUBPD       Y0, Y3, Y0
	VMOVUPD      472(R12), Y3
	VSUBPD       Y1, Y3, Y1
	VMOVUPD      504(R12), Y3
	VSUBPD       Y2, Y3, Y2
	// s = xp[j] − xpi
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, (R10)(X13*8), Y3
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 8(R10)(X13*8), Y4
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 16(R10)(X13*8), Y5
	VSUBPD       536(R12), Y3, Y3
	VSUBPD       568(R12), Y4, Y4
	VSUBPD       600(R12), Y5, Y5

	// h_c = (−r_c) − (((fi+fj)_c0 s0 + (fi+fj)_c1 s1) + (fi+fj)_c2 s2), c = 0, 1, 2 → Y8, Y9, Y10
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 0(R11)(X12*8), Y6
	VADDPD       152(R12), Y6, Y6
	VMULPD       Y3, Y6, Y6
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 8(R11)(X12*8), Y7
	VADDPD       184(R12), Y7, Y7
	VMULPD       Y4, Y7, Y7
	VADDPD       Y7, Y6, Y6
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 16(R11)(X12*8), Y7
	VADDPD       216(R12), Y7, Y7
	VMULPD       Y5, Y7, Y7
	VADDPD       Y7, Y6, Y6
	VXORPD       forceConst<>+0(SB), Y0, Y7
	VSUBPD       Y6, Y7, Y8          // h0

	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 24(R11)(X12*8), Y6
	VADDPD       248(R12), Y6, Y6
	VMULPD       Y3, Y6, Y6
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 32(R11)(X12*8), Y7
	VADDPD       280(R12), Y7, Y7
	VMULPD       Y4, Y7, Y7
	VADDPD       Y7, Y6, Y6
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 40(R11)(X12*8), Y7
	VADDPD       312(R12), Y7, Y7
	VMULPD       Y5, Y7, Y7
	VADDPD       Y7, Y6, Y6
	VXORPD       forceConst<>+0(SB), Y1, Y7
	VSUBPD       Y6, Y7, Y9          // h1

	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 48(R11)(X12*8), Y6
	VADDPD       344(R12), Y6, Y6
	VMULPD       Y3, Y6, Y6
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 56(R11)(X12*8), Y7
	VADDPD       376(R12), Y7, Y7
	VMULPD       Y4, Y7, Y7
	VADDPD       Y7, Y6, Y6
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 64(R11)(X12*8), Y7
	VADDPD       408(R12), Y7, Y7
	VMULPD       Y5, Y7, Y7
	VADDPD       Y7, Y6, Y6
	VXORPD       forceConst<>+0(SB), Y2, Y7
	VSUBPD       Y6, Y7, Y10         // h2

	// rr → Y3, h·r → Y4
	VMULPD       Y0, Y0, Y3
	VMULPD       Y1, Y1, Y4
	VADDPD       Y4, Y3, Y3
	VMULPD       Y2, Y2, Y4
	VADDPD       Y4, Y3, Y3
	VMULPD       Y8, Y0, Y4
	VMULPD       Y9, Y1, Y5
	VADDPD       Y5, Y4, Y4
	VMULPD       Y10, Y2, Y5
	VADDPD       Y5, Y4, Y4

	// w = float32(W(√rr)) → Y7
	VSQRTPD      Y3, Y5
	VMULPD       696(R12), Y5, Y5    // q = r/h
	VMULPD       Y5, Y5, Y6          // q²
	VMULPD       forceConst<>+32(SB), Y6, Y7 // 6q²
	VMULPD       Y5, Y7, Y8          // 6q²·q
	VSUBPD       Y7, Y8, Y8
	VADDPD       forceConst<>+64(SB), Y8, Y8
	VMULPD       760(R12), Y8, Y8    // inner = k(…)
	VMOVUPD      forceConst<>+64(SB), Y9
	VSUBPD       Y5, Y9, Y9          // a = 1 − q
	VMULPD       728(R12), Y9, Y10   // 2k·a
	VMULPD       Y9, Y10, Y10
	VMULPD       Y9, Y10, Y10        // outer
	VCMPPD       $0x02, forceConst<>+96(SB), Y5, Y6 // q ≤ ½
	VBLENDVPD    Y6, Y8, Y10, Y7
	VCMPPD       $0x19, forceConst<>+64(SB), Y5, Y6 // not q ≥ 1
	VANDPD       Y6, Y7, Y7
	VCVTPD2PSY   Y7, X7
	VCVTPS2PD    X7, Y7

	// q = ((damp·w)·(h·r))/rr
	VMULPD       664(R12), Y7, Y7
	VMULPD       Y4, Y7, Y7
	VDIVPD       Y3, Y7, Y7

	// g = K(pa[e] − pa[p]) + q r → Y8, Y9, Y10
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, (BX)(X14*8), Y8
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 8(BX)(X14*8), Y9
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 16(BX)(X14*8), Y10
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, (R8)(X11*8), Y3
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 8(R8)(X11*8), Y4
	VMOVDQU      792(R12), Y15
	VGATHERDPD   Y15, 16(R8)(X11*8), Y5
	VSUBPD       Y3, Y8, Y8
	VMULPD       632(R12), Y8, Y8
	VMULPD       Y0, Y7, Y3
	VADDPD       Y3, Y8, Y8          // g0
	VSUBPD       Y4, Y9, Y9
	VMULPD       632(R12), Y9, Y9
	VMULPD       Y1, Y7, Y4
	VADDPD       Y4, Y9, Y9          // g1
	VSUBPD       Y5, Y10, Y10
	VMULPD       632(R12), Y10, Y10
	VMULPD       Y2, Y7, Y5
	VADDPD       Y5, Y10, Y10        // g2

	// stores: g to pe[0..3], −g to pa[p_l]
	VXORPD       forceConst<>+0(SB), Y8, Y0
	VXORPD       forceConst<>+0(SB), Y9, Y1
	VXORPD       forceConst<>+0(SB), Y10, Y2
	VMOVLPD      X8, 0(BX)
	VMOVLPD      X9, 8(BX)
	VMOVLPD      X10, 16(BX)
	MOVLQSX      0(DI)(AX*4), R13
	LEAQ         (R13)(R13*2), R13
	VMOVLPD      X0, 0(R8)(R13*8)
	VMOVLPD      X1, 8(R8)(R13*8)
	VMOVLPD      X2, 16(R8)(R13*8)
	CMPQ         DX, $2
	JLT          gnext
	VMOVHPD      X8, 24(BX)
	VMOVHPD      X9, 32(BX)
	VMOVHPD      X10, 40(BX)
	MOVLQSX      4(DI)(AX*4), R14
	LEAQ         (R14)(R14*2), R14
	VMOVHPD      X0, 0(R8)(R14*8)
	VMOVHPD      X1, 8(R8)(R14*8)
	VMOVHPD      X2, 16(R8)(R14*8)
	CMPQ         DX, $3
	JLT          gnext
	VEXTRACTF128 $1, Y8, X8
	VEXTRACTF128 $1, Y9, X9
	VEXTRACTF128 $1, Y10, X10
	VEXTRACTF128 $1, Y0, X0
	VEXTRACTF128 $1, Y1, X1
	VEXTRACTF128 $1, Y2, X2
	VMOVLPD      X8, 48(BX)
	VMOVLPD      X9, 56(BX)
	VMOVLPD      X10, 64(BX)
	MOVLQSX      8(DI)(AX*4), R13
	LEAQ         (R13)(R13*2), R13
	VMOVLPD      X0, 0(R8)(R13*8)
	VMOVLPD      X1, 8(R8)(R13*8)
	VMOVLPD      X2, 16(R8)(R13*8)
	CMPQ         DX, $4
	JLT          gnext
	VMOVHPD      X8, 72(BX)
	VMOVHPD      X9, 80(BX)
	VMOVHPD      X10, 88(BX)
	MOVLQSX      12(DI)(AX*4), R14
	LEAQ         (R14)(R14*2), R14
	VMOVHPD      X0, 0(R8)(R14*8)
	VMOVHPD      X1, 8(R8)(R14*8)
	VMOVHPD      X2, 16(R8)(R14*8)

gnext:
	ADDQ         $96, BX
	ADDQ         $4, AX
	JMP          gloop

gdone:
	VZEROUPPER
	RET
