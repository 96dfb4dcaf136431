//go:build !purego

#include "textflag.h"

// func gatherSum4AVX(js *int32, gs *float32, n int, v *[4]float64, out *[4]float64)
//
// One pair a step: g_k widened to float64 and broadcast, times the 32-byte row v[j_k], added to
// the accumulator; the same products and sums per component as the Go loop. The widening
// merges into X15, which holds zero, so it does not wait for the register's last value.
TEXT ·gatherSum4AVX(SB), NOSPLIT, $0-40
	MOVQ   js+0(FP), SI
	MOVQ   gs+8(FP), DI
	MOVQ   n+16(FP), CX
	MOVQ   v+24(FP), R8
	VXORPD Y0, Y0, Y0
	VXORPD X15, X15, X15
	XORQ   AX, AX

loop:
	CMPQ         AX, CX
	JGE          done
	MOVLQSX      (SI)(AX*4), BX
	SHLQ         $5, BX
	VCVTSS2SD    (DI)(AX*4), X15, X1
	VBROADCASTSD X1, Y1
	VMULPD       (R8)(BX*1), Y1, Y1
	VADDPD       Y1, Y0, Y0
	INCQ         AX
	JMP          loop

done:
	MOVQ    out+32(FP), DX
	VMOVUPD Y0, (DX)
	VZEROUPPER
	RET

// func kGradSumAVX(js *int32, gs *float32, n int, v *[4]float64, y *[4]float64, m float64, out *[4]float64)
//
// One pair a step, the components in the lanes: k_j broadcast from the row's lane 3,
// f = m·(k_i + k_j)·g, and f·(y − v_j) added to the accumulator (its lane 3 carries
// f·(k_i − k_j), not returned).
TEXT ·kGradSumAVX(SB), NOSPLIT, $0-56
	MOVQ         js+0(FP), SI
	MOVQ         gs+8(FP), DI
	MOVQ         n+16(FP), CX
	MOVQ         v+24(FP), R8
	MOVQ         y+32(FP), DX
	VMOVUPD      (DX), Y2              // y
	VPERMPD      $0xff, Y2, Y3         // k_i in every lane
	VBROADCASTSD m+40(FP), Y4
	VXORPD       Y0, Y0, Y0
	VXORPD       X15, X15, X15
	XORQ         AX, AX

kloop:
	CMPQ         AX, CX
	JGE          kdone
	MOVLQSX      (SI)(AX*4), BX
	SHLQ         $5, BX
	VMOVUPD      (R8)(BX*1), Y1        // v_j
	VPERMPD      $0xff, Y1, Y5         // k_j
	VADDPD       Y5, Y3, Y5            // k_i + k_j
	VMULPD       Y5, Y4, Y5            // m·(…)
	VCVTSS2SD    (DI)(AX*4), X15, X6
	VBROADCASTSD X6, Y6
	VMULPD       Y6, Y5, Y5            // ·g
	VSUBPD       Y1, Y2, Y1            // y − v_j
	VMULPD       Y1, Y5, Y1
	VADDPD       Y1, Y0, Y0
	INCQ         AX
	JMP          kloop

kdone:
	MOVQ    out+48(FP), DX
	VMOVUPD Y0, (DX)
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
