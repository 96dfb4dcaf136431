//go:build !purego

#include "textflag.h"

// func screenAVX2(cand, near *int32, nx, ny, nz *float32, n int, x, y, z, h2 float32) int
//
// Eight candidates a step: the squared distance in single precision, summed in the order of
// the Go loop (dx² + dy², then + dz², no fused multiply-add), so the accepted set is the Go
// loop's exactly; the accepted lanes' entries of near are packed to the front of a vector by
// the permutation packTable[mask] and stored at cand[count], and count advances by the
// number of accepted lanes. n is a multiple of 8; cand has room for n entries.
TEXT ·screenAVX2(SB), NOSPLIT, $0-72
	MOVQ         cand+0(FP), DI
	MOVQ         near+8(FP), SI
	MOVQ         nx+16(FP), R8
	MOVQ         ny+24(FP), R9
	MOVQ         nz+32(FP), R10
	MOVQ         n+40(FP), CX
	VBROADCASTSS x+48(FP), Y0
	VBROADCASTSS y+52(FP), Y1
	VBROADCASTSS z+56(FP), Y2
	VBROADCASTSS h2+60(FP), Y3
	LEAQ         ·packTable(SB), R11
	XORQ         AX, AX
	XORQ         DX, DX

	PCALIGN $32
loop:
	CMPQ      AX, CX
	JGE       done
	VMOVUPS   (R8)(AX*4), Y4
	VSUBPS    Y4, Y0, Y4
	VMULPS    Y4, Y4, Y4
	VMOVUPS   (R9)(AX*4), Y5
	VSUBPS    Y5, Y1, Y5
	VMULPS    Y5, Y5, Y5
	VADDPS    Y5, Y4, Y4
	VMOVUPS   (R10)(AX*4), Y5
	VSUBPS    Y5, Y2, Y5
	VMULPS    Y5, Y5, Y5
	VADDPS    Y5, Y4, Y4
	VCMPPS    $1, Y3, Y4, Y4
	VMOVMSKPS Y4, BX
	VMOVDQU   (SI)(AX*4), Y6
	MOVQ      BX, R12
	SHLQ      $5, R12
	VMOVDQU   (R11)(R12*1), Y7
	VPERMD    Y6, Y7, Y6
	VMOVDQU   Y6, (DI)(DX*4)
	POPCNTL   BX, BX
	ADDQ      BX, DX
	ADDQ      $8, AX
	JMP       loop

done:
	VZEROUPPER
	MOVQ DX, ret+64(FP)
	RET

// func keepAVX2(cand *int32, n int, order *int32, sorted *float64, xi *float64, h2 float64, self int32, js *int32, r2s *float64) int
//
// Four candidates a step (n is a multiple of 4): their rows x_i − x_k (masked loads of the
// sorted positions, the components in the lanes) squared and transposed to one candidate a
// lane, so that each squared distance is (dx² + dy²) + dz² as in the Go loop; a lane is kept
// unless r² ≥ h² or its point order[k] is self; the kept lanes' points and squared distances
// are packed to the front by packTable and packTable2 and stored at js[count] and
// r2s[count]. count never passes the candidates taken, so js and r2s need room for n.
TEXT ·keepAVX2(SB), NOSPLIT, $0-80
	MOVQ         cand+0(FP), SI
	MOVQ         n+8(FP), CX
	MOVQ         order+16(FP), R8
	MOVQ         sorted+24(FP), R9
	MOVQ         xi+32(FP), BX
	VMOVUPD      rowMask3<>(SB), Y14
	VMASKMOVPD   (BX), Y14, Y12
	VBROADCASTSD h2+40(FP), Y13
	MOVL         self+48(FP), R12
	VMOVD        R12, X11
	VPBROADCASTD X11, X11
	MOVQ         js+56(FP), DI
	MOVQ         r2s+64(FP), R10
	LEAQ         ·packTable(SB), R11
	LEAQ         ·packTable2(SB), R13
	XORQ         AX, AX
	XORQ         DX, DX

	PCALIGN $32
kloop:
	CMPQ         AX, CX
	JGE          kdone
	MOVLQSX      (SI)(AX*4), BX
	LEAQ         (BX)(BX*2), BX
	VMASKMOVPD   (R9)(BX*8), Y14, Y0
	VSUBPD       Y0, Y12, Y0
	VMULPD       Y0, Y0, Y0
	MOVLQSX      4(SI)(AX*4), BX
	LEAQ         (BX)(BX*2), BX
	VMASKMOVPD   (R9)(BX*8), Y14, Y1
	VSUBPD       Y1, Y12, Y1
	VMULPD       Y1, Y1, Y1
	MOVLQSX      8(SI)(AX*4), BX
	LEAQ         (BX)(BX*2), BX
	VMASKMOVPD   (R9)(BX*8), Y14, Y2
	VSUBPD       Y2, Y12, Y2
	VMULPD       Y2, Y2, Y2
	MOVLQSX      12(SI)(AX*4), BX
	LEAQ         (BX)(BX*2), BX
	VMASKMOVPD   (R9)(BX*8), Y14, Y3
	VSUBPD       Y3, Y12, Y3
	VMULPD       Y3, Y3, Y3
	VUNPCKLPD    Y1, Y0, Y4
	VUNPCKHPD    Y1, Y0, Y5
	VUNPCKLPD    Y3, Y2, Y6
	VUNPCKHPD    Y3, Y2, Y7
	VPERM2F128   $0x20, Y6, Y4, Y0  // dx² of the four
	VPERM2F128   $0x20, Y7, Y5, Y1  // dy²
	VPERM2F128   $0x31, Y6, Y4, Y2  // dz²
	VADDPD       Y1, Y0, Y0
	VADDPD       Y2, Y0, Y0         // r²
	VCMPPD       $0x19, Y13, Y0, Y1 // not r² ≥ h²
	VMOVMSKPD    Y1, BX
	VMOVDQU      (SI)(AX*4), X5
	VPCMPEQD     X7, X7, X7
	VPGATHERDD   X7, (R8)(X5*4), X6 // order[k]
	VPCMPEQD     X11, X6, X7
	VMOVMSKPS    X7, R12
	NOTL         R12
	ANDL         R12, BX
	MOVQ         BX, R12
	SHLQ         $5, R12
	VMOVDQU      (R11)(R12*1), X7
	VPERMILPS    X7, X6, X6
	VMOVDQU      X6, (DI)(DX*4)
	VMOVDQU      (R13)(R12*1), Y7
	VPERMD       Y0, Y7, Y0
	VMOVUPD      Y0, (R10)(DX*8)
	POPCNTL      BX, BX
	ADDQ         BX, DX
	ADDQ         $4, AX
	JMP          kloop

kdone:
	VZEROUPPER
	MOVQ DX, ret+72(FP)
	RET

DATA rowMask3<>+0(SB)/8, $-1
DATA rowMask3<>+8(SB)/8, $-1
DATA rowMask3<>+16(SB)/8, $-1
DATA rowMask3<>+24(SB)/8, $0
GLOBL rowMask3<>(SB), RODATA|NOPTR, $32

// func gatherRunAVX(cells, cellStart *int32, sorted *float64, near *int32, nx, ny, nz *float32, ox, oy, oz float64) int
//
// The candidates of a run: for each of the 27 cells (entries < 0 skipped), the sorted indices
// k of its points into near and their positions less the origin, rounded to single precision,
// into nx, ny and nz; returns their number. Each difference is rounded once, as
// float32(p − o) in Go; the conversion's merge source is its own input, so it does not wait
// for the register's previous value.
TEXT ·gatherRunAVX(SB), NOSPLIT, $0-88
	MOVQ    cells+0(FP), R8
	MOVQ    cellStart+8(FP), R9
	MOVQ    sorted+16(FP), R10
	MOVQ    near+24(FP), DI
	MOVQ    nx+32(FP), R11
	MOVQ    ny+40(FP), R12
	MOVQ    nz+48(FP), R13
	VMOVSD  ox+56(FP), X0
	VMOVSD  oy+64(FP), X1
	VMOVSD  oz+72(FP), X2
	XORQ    AX, AX // t
	XORQ    CX, CX // cell counter

cells:
	CMPQ    CX, $27
	JGE     gdone
	MOVLQSX (R8)(CX*4), BX
	INCQ    CX
	TESTQ   BX, BX
	JS      cells
	MOVLQSX (R9)(BX*4), SI  // s
	MOVLQSX 4(R9)(BX*4), DX // e
	CMPQ    SI, DX
	JGE     cells
	LEAQ    (SI)(SI*2), R14
	SHLQ    $3, R14
	ADDQ    R10, R14        // &sorted[3s]

	PCALIGN $32
points:
	VMOVSD    (R14), X3
	VSUBSD    X0, X3, X3
	VCVTSD2SS X3, X3, X3
	VMOVSS    X3, (R11)(AX*4)
	VMOVSD    8(R14), X4
	VSUBSD    X1, X4, X4
	VCVTSD2SS X4, X4, X4
	VMOVSS    X4, (R12)(AX*4)
	VMOVSD    16(R14), X5
	VSUBSD    X2, X5, X5
	VCVTSD2SS X5, X5, X5
	VMOVSS    X5, (R13)(AX*4)
	MOVL      SI, (DI)(AX*4)
	INCQ      AX
	INCQ      SI
	ADDQ      $24, R14
	CMPQ      SI, DX
	JLT       points
	JMP       cells

gdone:
	MOVQ AX, ret+80(FP)
	RET

// Four copies each of 1, 0.5, 6, 3 and 2, for the cubic spline's vector loop.
DATA cubicOne<>+0(SB)/8, $1.0
DATA cubicOne<>+8(SB)/8, $1.0
DATA cubicOne<>+16(SB)/8, $1.0
DATA cubicOne<>+24(SB)/8, $1.0
GLOBL cubicOne<>(SB), RODATA|NOPTR, $32
DATA cubicHalf<>+0(SB)/8, $0.5
DATA cubicHalf<>+8(SB)/8, $0.5
DATA cubicHalf<>+16(SB)/8, $0.5
DATA cubicHalf<>+24(SB)/8, $0.5
GLOBL cubicHalf<>(SB), RODATA|NOPTR, $32
DATA cubicSix<>+0(SB)/8, $6.0
DATA cubicSix<>+8(SB)/8, $6.0
DATA cubicSix<>+16(SB)/8, $6.0
DATA cubicSix<>+24(SB)/8, $6.0
GLOBL cubicSix<>(SB), RODATA|NOPTR, $32
DATA cubicThree<>+0(SB)/8, $3.0
DATA cubicThree<>+8(SB)/8, $3.0
DATA cubicThree<>+16(SB)/8, $3.0
DATA cubicThree<>+24(SB)/8, $3.0
GLOBL cubicThree<>(SB), RODATA|NOPTR, $32
DATA cubicTwo<>+0(SB)/8, $2.0
DATA cubicTwo<>+8(SB)/8, $2.0
DATA cubicTwo<>+16(SB)/8, $2.0
DATA cubicTwo<>+24(SB)/8, $2.0
GLOBL cubicTwo<>(SB), RODATA|NOPTR, $32

// func cubicAVX(r2 *float64, wv, gv *float32, n int, invH, k, l, k2, negL float64)
//
// The cubic spline's value and gradient factor (Kernel.cubic) of n squared distances (a
// multiple of 4), four at a time: r = √r², q = r/H, both branches evaluated with the
// operations of Kernel.cubic in its order, the one with q ≤ ½ or q > ½ kept per lane, and
// both rounded to single precision. k2 = k·2 and negL = −l as Kernel.cubic forms them.
TEXT ·cubicAVX(SB), NOSPLIT, $0-72
	MOVQ         r2+0(FP), SI
	MOVQ         wv+8(FP), DI
	MOVQ         gv+16(FP), DX
	MOVQ         n+24(FP), CX
	VBROADCASTSD invH+32(FP), Y0
	VBROADCASTSD k+40(FP), Y1
	VBROADCASTSD l+48(FP), Y2
	VBROADCASTSD k2+56(FP), Y3
	VBROADCASTSD negL+64(FP), Y4
	XORQ         AX, AX

	PCALIGN $32
kloop:
	CMPQ       AX, CX
	JGE        kdone
	VMOVUPD    (SI)(AX*8), Y5
	VSQRTPD    Y5, Y5                  // r
	VMULPD     Y0, Y5, Y6              // q = r·invH
	VMOVUPD    cubicOne<>(SB), Y15
	VSUBPD     Y6, Y15, Y7             // a = 1 − q
	VMULPD     cubicSix<>(SB), Y6, Y8  // 6q
	VMULPD     Y6, Y8, Y8              // ·q
	VSUBPD     Y15, Y6, Y9             // q − 1
	VMULPD     Y9, Y8, Y8              // ·(q − 1)
	VADDPD     Y15, Y8, Y8             // + 1
	VMULPD     Y8, Y1, Y8              // w, q ≤ ½: k·(…)
	VMULPD     cubicThree<>(SB), Y6, Y9 // 3q
	VSUBPD     cubicTwo<>(SB), Y9, Y9  // 3q − 2
	VMULPD     Y9, Y2, Y9              // l·(3q − 2)
	VMULPD     Y0, Y9, Y9              // ·invH
	VMULPD     Y0, Y9, Y9              // g, q ≤ ½: ·invH
	VMULPD     Y7, Y3, Y10             // k·2·a
	VMULPD     Y7, Y10, Y10            // ·a
	VMULPD     Y7, Y10, Y10            // w, q > ½: ·a
	VMULPD     Y7, Y4, Y11             // −l·a
	VMULPD     Y7, Y11, Y11            // ·a
	VMULPD     Y0, Y11, Y11            // ·invH
	VDIVPD     Y5, Y11, Y11            // g, q > ½: /r
	VCMPPD     $2, cubicHalf<>(SB), Y6, Y12 // q ≤ ½
	VBLENDVPD  Y12, Y8, Y10, Y10
	VBLENDVPD  Y12, Y9, Y11, Y11
	VCVTPD2PSY Y10, X10
	VCVTPD2PSY Y11, X11
	VMOVUPS    X10, (DI)(AX*4)
	VMOVUPS    X11, (DX)(AX*4)
	ADDQ       $4, AX
	JMP        kloop

kdone:
	VZEROUPPER
	RET
