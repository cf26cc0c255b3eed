//go:build amd64 && !purego

#include "textflag.h"

// The packing routines copy rows of a matrix, each read along the terms,
// into a panel laid out term by term: dst[l*R+r] = src[r*ld+l] for r < R
// (the panel's rows) and l < k, k a multiple of the terms transposed per
// pass (4 float64s, 8 float32s). They transpose 4x4 blocks of float64s
// and 8x8 blocks of float32s in registers.
//
// Registers: CX the passes left, SI the terms' first row, DI dst; R9 ld,
// R11 3 ld, R12 5 ld, R13 7 ld, in bytes.

// LDSTRIDES loads the arguments and the strides.
#define LDSTRIDES(LOG2) \
	MOVQ dst+0(FP), DI \
	MOVQ src+8(FP), SI \
	MOVQ ld+16(FP), R9 \
	SHLQ $LOG2, R9 \
	MOVQ k+24(FP), CX \
	LEAQ (R9)(R9*2), R11 \
	LEAQ (R9)(R9*4), R12 \
	LEAQ (R11)(R9*4), R13

// The scatter routines copy n chunks of consecutive bytes at src to dst,
// stride bytes apart: the chunks of one term of a row of a matrix to the
// panels of a packed block.
#define SCATTERARGS \
	MOVQ dst+0(FP), DI \
	MOVQ stride+8(FP), R8 \
	MOVQ src+16(FP), SI \
	MOVQ n+24(FP), CX \
	TESTQ CX, CX \
	JZ   done

// T4X4 transposes four rows of four float64s, R0-R3, into four terms, D0-D3,
// through T0-T3.
#define T4X4(R0, R1, R2, R3, T0, T1, T2, T3, D0, D1, D2, D3) \
	VUNPCKLPD R1, R0, T0 \
	VUNPCKHPD R1, R0, T1 \
	VUNPCKLPD R3, R2, T2 \
	VUNPCKHPD R3, R2, T3 \
	VPERM2F128 $0x20, T2, T0, D0 \
	VPERM2F128 $0x20, T3, T1, D1 \
	VPERM2F128 $0x31, T2, T0, D2 \
	VPERM2F128 $0x31, T3, T1, D3

// func packT8x64(dst, src *float64, ld, k int)
TEXT ·packT8x64(SB), NOSPLIT, $0-32
	LDSTRIDES(3)
	SHRQ $2, CX
	JZ   done
loop:
	VMOVUPD (SI), Y0
	VMOVUPD (SI)(R9*1), Y1
	VMOVUPD (SI)(R9*2), Y2
	VMOVUPD (SI)(R11*1), Y3
	VMOVUPD (SI)(R9*4), Y4
	VMOVUPD (SI)(R12*1), Y5
	VMOVUPD (SI)(R11*2), Y6
	VMOVUPD (SI)(R13*1), Y7
	T4X4(Y0, Y1, Y2, Y3, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	VMOVUPD Y12, (DI)
	VMOVUPD Y13, 64(DI)
	VMOVUPD Y14, 128(DI)
	VMOVUPD Y15, 192(DI)
	T4X4(Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	VMOVUPD Y12, 32(DI)
	VMOVUPD Y13, 96(DI)
	VMOVUPD Y14, 160(DI)
	VMOVUPD Y15, 224(DI)
	ADDQ $32, SI
	ADDQ $256, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func packT6x64(dst, src *float64, ld, k int)
TEXT ·packT6x64(SB), NOSPLIT, $0-32
	LDSTRIDES(3)
	SHRQ $2, CX
	JZ   done
loop:
	VMOVUPD (SI), Y0
	VMOVUPD (SI)(R9*1), Y1
	VMOVUPD (SI)(R9*2), Y2
	VMOVUPD (SI)(R11*1), Y3
	VMOVUPD (SI)(R9*4), Y4
	VMOVUPD (SI)(R12*1), Y5
	T4X4(Y0, Y1, Y2, Y3, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	VUNPCKLPD Y5, Y4, Y6
	VUNPCKHPD Y5, Y4, Y7
	VMOVUPD Y12, (DI)
	VMOVUPD X6, 32(DI)
	VMOVUPD Y13, 48(DI)
	VMOVUPD X7, 80(DI)
	VMOVUPD Y14, 96(DI)
	VEXTRACTF128 $1, Y6, 128(DI)
	VMOVUPD Y15, 144(DI)
	VEXTRACTF128 $1, Y7, 176(DI)
	ADDQ $32, SI
	ADDQ $192, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// T8X8LO interleaves eight rows of eight float32s, R0-R7, into U0-U7:
// U(i) holds term i of rows 0-3 and term i+4 of rows 0-3 in its lanes,
// U(4+i) the same for rows 4-7 (i < 4), through T0-T7.
#define T8X8LO(R0, R1, R2, R3, R4, R5, R6, R7, T0, T1, T2, T3, T4, T5, T6, T7) \
	VUNPCKLPS R1, R0, T0 \
	VUNPCKHPS R1, R0, T1 \
	VUNPCKLPS R3, R2, T2 \
	VUNPCKHPS R3, R2, T3 \
	VUNPCKLPS R5, R4, T4 \
	VUNPCKHPS R5, R4, T5 \
	VUNPCKLPS R7, R6, T6 \
	VUNPCKHPS R7, R6, T7 \
	VSHUFPS $0x44, T2, T0, R0 \
	VSHUFPS $0xEE, T2, T0, R1 \
	VSHUFPS $0x44, T3, T1, R2 \
	VSHUFPS $0xEE, T3, T1, R3 \
	VSHUFPS $0x44, T6, T4, R4 \
	VSHUFPS $0xEE, T6, T4, R5 \
	VSHUFPS $0x44, T7, T5, R6 \
	VSHUFPS $0xEE, T7, T5, R7

// T8X8STORE joins the lanes of U0-U7 (as left by T8X8LO in R0-R7) into the
// eight terms and stores term t at OFF + t*STEP(DI).
#define T8X8STORE(OFF, STEP, R0, R1, R2, R3, R4, R5, R6, R7, T) \
	VPERM2F128 $0x20, R4, R0, T \
	VMOVUPS T, (OFF+0*STEP)(DI) \
	VPERM2F128 $0x20, R5, R1, T \
	VMOVUPS T, (OFF+1*STEP)(DI) \
	VPERM2F128 $0x20, R6, R2, T \
	VMOVUPS T, (OFF+2*STEP)(DI) \
	VPERM2F128 $0x20, R7, R3, T \
	VMOVUPS T, (OFF+3*STEP)(DI) \
	VPERM2F128 $0x31, R4, R0, T \
	VMOVUPS T, (OFF+4*STEP)(DI) \
	VPERM2F128 $0x31, R5, R1, T \
	VMOVUPS T, (OFF+5*STEP)(DI) \
	VPERM2F128 $0x31, R6, R2, T \
	VMOVUPS T, (OFF+6*STEP)(DI) \
	VPERM2F128 $0x31, R7, R3, T \
	VMOVUPS T, (OFF+7*STEP)(DI)

// func packT16x32(dst, src *float32, ld, k int)
TEXT ·packT16x32(SB), NOSPLIT, $0-32
	LDSTRIDES(2)
	LEAQ (SI)(R9*8), BX // rows 8-15
	SHRQ $3, CX
	JZ   done
loop:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R9*1), Y1
	VMOVUPS (SI)(R9*2), Y2
	VMOVUPS (SI)(R11*1), Y3
	VMOVUPS (SI)(R9*4), Y4
	VMOVUPS (SI)(R12*1), Y5
	VMOVUPS (SI)(R11*2), Y6
	VMOVUPS (SI)(R13*1), Y7
	T8X8LO(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	T8X8STORE(0, 64, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8)
	VMOVUPS (BX), Y0
	VMOVUPS (BX)(R9*1), Y1
	VMOVUPS (BX)(R9*2), Y2
	VMOVUPS (BX)(R11*1), Y3
	VMOVUPS (BX)(R9*4), Y4
	VMOVUPS (BX)(R12*1), Y5
	VMOVUPS (BX)(R11*2), Y6
	VMOVUPS (BX)(R13*1), Y7
	T8X8LO(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15)
	T8X8STORE(32, 64, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8)
	ADDQ $32, SI
	ADDQ $32, BX
	ADDQ $512, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func packT6x32(dst, src *float32, ld, k int)
//
// Rows 0-3 of each term go through T8X8LO's first half; rows 4 and 5 are
// interleaved into T4 (terms 0, 1, 4, 5) and T5 (terms 2, 3, 6, 7), two
// values per term.
TEXT ·packT6x32(SB), NOSPLIT, $0-32
	LDSTRIDES(2)
	SHRQ $3, CX
	JZ   done
loop:
	VMOVUPS (SI), Y0
	VMOVUPS (SI)(R9*1), Y1
	VMOVUPS (SI)(R9*2), Y2
	VMOVUPS (SI)(R11*1), Y3
	VMOVUPS (SI)(R9*4), Y4
	VMOVUPS (SI)(R12*1), Y5
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VMOVUPS X0, (DI)
	VMOVLPS X12, 16(DI)
	VMOVUPS X1, 24(DI)
	VMOVHPS X12, 40(DI)
	VMOVUPS X2, 48(DI)
	VMOVLPS X13, 64(DI)
	VMOVUPS X3, 72(DI)
	VMOVHPS X13, 88(DI)
	VEXTRACTF128 $1, Y12, X12
	VEXTRACTF128 $1, Y13, X13
	VEXTRACTF128 $1, Y0, 96(DI)
	VMOVLPS X12, 112(DI)
	VEXTRACTF128 $1, Y1, 120(DI)
	VMOVHPS X12, 136(DI)
	VEXTRACTF128 $1, Y2, 144(DI)
	VMOVLPS X13, 160(DI)
	VEXTRACTF128 $1, Y3, 168(DI)
	VMOVHPS X13, 184(DI)
	ADDQ $32, SI
	ADDQ $192, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func scatter64(dst unsafe.Pointer, stride int, src unsafe.Pointer, n int)
TEXT ·scatter64(SB), NOSPLIT, $0-32
	SCATTERARGS
loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ $64, SI
	ADDQ R8, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func scatter48(dst unsafe.Pointer, stride int, src unsafe.Pointer, n int)
TEXT ·scatter48(SB), NOSPLIT, $0-32
	SCATTERARGS
loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), X1
	VMOVUPS Y0, (DI)
	VMOVUPS X1, 32(DI)
	ADDQ $48, SI
	ADDQ R8, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET

// func scatter24(dst unsafe.Pointer, stride int, src unsafe.Pointer, n int)
TEXT ·scatter24(SB), NOSPLIT, $0-32
	SCATTERARGS
loop:
	VMOVUPS (SI), X0
	MOVQ 16(SI), AX
	VMOVUPS X0, (DI)
	MOVQ AX, 16(DI)
	ADDQ $24, SI
	ADDQ R8, DI
	DECQ CX
	JNZ  loop
done:
	VZEROUPPER
	RET
