//go:build amd64 && !purego

#include "textflag.h"

// The kernels keep a block of 6 rows (kern6x8, kern6x16) or 4 rows
// (kern4x8, kern4x16) and two vectors of columns of c (8 float64s, 16
// float32s) in YMM registers, row r in Y(3+2r) and Y(4+2r), and add one
// term per fused multiply-add: for each term l, the two vectors of b at
// b[l*ldb] go to Y0 and Y1, and each a[r][l] is broadcast (to Y2 or Y15,
// alternately) and multiplied into the two vectors of row r. Four terms
// are read per pass of the loop, after the k mod 4 first ones one at a
// time, in the order of l whatever k is. The first rows rows of the block
// are then added into c, or written.
//
// Registers: CX the passes left, SI a, DI b, DX c; R8 ldc, R9 lda, R10 ldb,
// R11 3 lda, R12 5 lda, R13 3 ldb, all in bytes.

// ROWFMA multiplies a[r][l], at AT, into the two vectors of row r (R0, R1),
// through the broadcast register T.
#define ROWFMA(BCAST, FMA, AT, T, R0, R1) \
	BCAST AT, T \
	FMA Y0, T, R0 \
	FMA Y1, T, R1

// COLS6 and COLS4 multiply the term's six or four values of a into their
// rows when the values are consecutive from AP on (a panel of op(a) with
// a[r][l] at l*lda + r).
#define COLS4(BCAST, FMA, SIZE, AP) \
	ROWFMA(BCAST, FMA, (0*SIZE)AP, Y2, Y3, Y4) \
	ROWFMA(BCAST, FMA, (1*SIZE)AP, Y15, Y5, Y6) \
	ROWFMA(BCAST, FMA, (2*SIZE)AP, Y2, Y7, Y8) \
	ROWFMA(BCAST, FMA, (3*SIZE)AP, Y15, Y9, Y10)

#define COLS6(BCAST, FMA, SIZE, AP) \
	COLS4(BCAST, FMA, SIZE, AP) \
	ROWFMA(BCAST, FMA, (4*SIZE)AP, Y2, Y11, Y12) \
	ROWFMA(BCAST, FMA, (5*SIZE)AP, Y15, Y13, Y14)

// ROWS6 and ROWS4 are COLS6 and COLS4 for values on rows lda apart (a[r][l]
// at r*lda + l), term OFF/SIZE of the pass.
#define ROWS4(BCAST, FMA, OFF) \
	ROWFMA(BCAST, FMA, OFF(SI), Y2, Y3, Y4) \
	ROWFMA(BCAST, FMA, OFF(SI)(R9*1), Y15, Y5, Y6) \
	ROWFMA(BCAST, FMA, OFF(SI)(R9*2), Y2, Y7, Y8) \
	ROWFMA(BCAST, FMA, OFF(SI)(R11*1), Y15, Y9, Y10)

#define ROWS6(BCAST, FMA, OFF) \
	ROWS4(BCAST, FMA, OFF) \
	ROWFMA(BCAST, FMA, OFF(SI)(R9*4), Y2, Y11, Y12) \
	ROWFMA(BCAST, FMA, OFF(SI)(R12*1), Y15, Y13, Y14)

// LOADB loads the term's two vectors of b, at BP.
#define LOADB(BP) \
	VMOVUPS BP, Y0 \
	VMOVUPS 32BP, Y1

// ONECOLS and FOURCOLS add one and four terms of a panel of op(a) read by
// columns (COLS, COLS6 or COLS4) and step a and b past them; ONEROWS and
// FOURROWS are the same for a read by rows (ROWS, ROWS6 or ROWS4).
#define ONECOLS(COLS, BCAST, FMA, SIZE) \
	LOADB((DI)) \
	COLS(BCAST, FMA, SIZE, (SI)) \
	ADDQ R9, SI \
	ADDQ R10, DI

#define FOURCOLS(COLS, BCAST, FMA, SIZE) \
	LOADB((DI)) \
	COLS(BCAST, FMA, SIZE, (SI)) \
	LOADB((DI)(R10*1)) \
	COLS(BCAST, FMA, SIZE, (SI)(R9*1)) \
	LOADB((DI)(R10*2)) \
	COLS(BCAST, FMA, SIZE, (SI)(R9*2)) \
	LOADB((DI)(R13*1)) \
	COLS(BCAST, FMA, SIZE, (SI)(R11*1)) \
	LEAQ (SI)(R9*4), SI \
	LEAQ (DI)(R10*4), DI

#define ONEROWS(ROWS, BCAST, FMA, SIZE) \
	LOADB((DI)) \
	ROWS(BCAST, FMA, 0) \
	ADDQ $SIZE, SI \
	ADDQ R10, DI

#define FOURROWS(ROWS, BCAST, FMA, SIZE) \
	LOADB((DI)) \
	ROWS(BCAST, FMA, 0) \
	LOADB((DI)(R10*1)) \
	ROWS(BCAST, FMA, (1*SIZE)) \
	LOADB((DI)(R10*2)) \
	ROWS(BCAST, FMA, (2*SIZE)) \
	LOADB((DI)(R13*1)) \
	ROWS(BCAST, FMA, (3*SIZE)) \
	ADDQ $(4*SIZE), SI \
	LEAQ (DI)(R10*4), DI

// ADDROW adds the two accumulators of a row (R0, R1) into the row of c at
// DX and steps DX to the next row; PUTROW writes them there.
#define ADDROW(ADD, R0, R1) \
	ADD (DX), R0, R0 \
	VMOVUPS R0, (DX) \
	ADD 32(DX), R1, R1 \
	VMOVUPS R1, 32(DX) \
	ADDQ R8, DX

#define PUTROW(ADD, R0, R1) \
	VMOVUPS R0, (DX) \
	VMOVUPS R1, 32(DX) \
	ADDQ R8, DX

// STORE4 and STORE6 store the first BX rows of the block, of at most four
// and six, with STORE (ADDROW or PUTROW).
#define STORE4(STORE, ADD) \
	STORE(ADD, Y3, Y4) \
	DECQ BX \
	JZ   done \
	STORE(ADD, Y5, Y6) \
	DECQ BX \
	JZ   done \
	STORE(ADD, Y7, Y8) \
	DECQ BX \
	JZ   done \
	STORE(ADD, Y9, Y10)

#define STORE6(STORE, ADD) \
	STORE4(STORE, ADD) \
	DECQ BX \
	JZ   done \
	STORE(ADD, Y11, Y12) \
	DECQ BX \
	JZ   done \
	STORE(ADD, Y13, Y14)

// PREFETCHC asks for the six rows of the block of c, which the kernel
// reads or writes once it has summed the terms.
#define PREFETCHC \
	MOVQ DX, AX \
	PREFETCHT0 (AX) \
	PREFETCHT0 63(AX) \
	ADDQ R8, AX \
	PREFETCHT0 (AX) \
	PREFETCHT0 63(AX) \
	ADDQ R8, AX \
	PREFETCHT0 (AX) \
	PREFETCHT0 63(AX) \
	ADDQ R8, AX \
	PREFETCHT0 (AX) \
	PREFETCHT0 63(AX) \
	ADDQ R8, AX \
	PREFETCHT0 (AX) \
	PREFETCHT0 63(AX) \
	ADDQ R8, AX \
	PREFETCHT0 (AX) \
	PREFETCHT0 63(AX)

// KERNEL is the body of the kernels: LOG2 is the base-2 logarithm of the
// element's size SIZE, BCAST, FMA and ADD its vector instructions, ONE and
// FOUR how a is read (ONECOLS and FOURCOLS, or ONEROWS and FOURROWS), AROWS
// the rows of the block (COLS6, COLS4, ROWS6 or ROWS4, to match), STORES
// STORE6 or STORE4, and STORE whether the block is added into c (ADDROW)
// or written (PUTROW).
#define KERNEL(SIZE, LOG2, BCAST, FMA, ADD, ONE, FOUR, AROWS, STORES, STORE) \
	MOVQ k+0(FP), CX \
	MOVQ a+8(FP), SI \
	MOVQ lda+16(FP), R9 \
	SHLQ $LOG2, R9 \
	MOVQ b+24(FP), DI \
	MOVQ ldb+32(FP), R10 \
	SHLQ $LOG2, R10 \
	MOVQ c+40(FP), DX \
	MOVQ ldc+48(FP), R8 \
	SHLQ $LOG2, R8 \
	LEAQ (R9)(R9*2), R11 \
	LEAQ (R9)(R9*4), R12 \
	LEAQ (R10)(R10*2), R13 \
	PREFETCHC \
	VXORPS Y3, Y3, Y3 \
	VXORPS Y4, Y4, Y4 \
	VXORPS Y5, Y5, Y5 \
	VXORPS Y6, Y6, Y6 \
	VXORPS Y7, Y7, Y7 \
	VXORPS Y8, Y8, Y8 \
	VXORPS Y9, Y9, Y9 \
	VXORPS Y10, Y10, Y10 \
	VXORPS Y11, Y11, Y11 \
	VXORPS Y12, Y12, Y12 \
	VXORPS Y13, Y13, Y13 \
	VXORPS Y14, Y14, Y14 \
	MOVQ CX, BX \
	ANDQ $3, BX \
	JZ   fours \
ones: \
	ONE(AROWS, BCAST, FMA, SIZE) \
	DECQ BX \
	JNZ  ones \
fours: \
	SHRQ $2, CX \
	JZ   store \
loop: \
	FOUR(AROWS, BCAST, FMA, SIZE) \
	DECQ CX \
	JNZ  loop \
store: \
	MOVQ rows+56(FP), BX \
	STORES(STORE, ADD) \
done: \
	VZEROUPPER \
	RET

#define KERNEL64(ONE, FOUR, AROWS, STORES, STORE) KERNEL(8, 3, VBROADCASTSD, VFMADD231PD, VADDPD, ONE, FOUR, AROWS, STORES, STORE)
#define KERNEL32(ONE, FOUR, AROWS, STORES, STORE) KERNEL(4, 2, VBROADCASTSS, VFMADD231PS, VADDPS, ONE, FOUR, AROWS, STORES, STORE)

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

// func xgetbv0() (eax uint32)
TEXT ·xgetbv0(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	RET

// func kern6x8(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)
TEXT ·kern6x8(SB), NOSPLIT, $0-64
	KERNEL64(ONECOLS, FOURCOLS, COLS6, STORE6, ADDROW)

// func kern6x8Put(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)
TEXT ·kern6x8Put(SB), NOSPLIT, $0-64
	KERNEL64(ONECOLS, FOURCOLS, COLS6, STORE6, PUTROW)

// func kern6x8Rows(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)
TEXT ·kern6x8Rows(SB), NOSPLIT, $0-64
	KERNEL64(ONEROWS, FOURROWS, ROWS6, STORE6, ADDROW)

// func kern6x8RowsPut(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)
TEXT ·kern6x8RowsPut(SB), NOSPLIT, $0-64
	KERNEL64(ONEROWS, FOURROWS, ROWS6, STORE6, PUTROW)

// func kern4x8(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)
TEXT ·kern4x8(SB), NOSPLIT, $0-64
	KERNEL64(ONECOLS, FOURCOLS, COLS4, STORE4, ADDROW)

// func kern4x8Put(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)
TEXT ·kern4x8Put(SB), NOSPLIT, $0-64
	KERNEL64(ONECOLS, FOURCOLS, COLS4, STORE4, PUTROW)

// func kern4x8Rows(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)
TEXT ·kern4x8Rows(SB), NOSPLIT, $0-64
	KERNEL64(ONEROWS, FOURROWS, ROWS4, STORE4, ADDROW)

// func kern4x8RowsPut(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, rows int)
TEXT ·kern4x8RowsPut(SB), NOSPLIT, $0-64
	KERNEL64(ONEROWS, FOURROWS, ROWS4, STORE4, PUTROW)

// func kern6x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)
TEXT ·kern6x16(SB), NOSPLIT, $0-64
	KERNEL32(ONECOLS, FOURCOLS, COLS6, STORE6, ADDROW)

// func kern6x16Put(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)
TEXT ·kern6x16Put(SB), NOSPLIT, $0-64
	KERNEL32(ONECOLS, FOURCOLS, COLS6, STORE6, PUTROW)

// func kern6x16Rows(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)
TEXT ·kern6x16Rows(SB), NOSPLIT, $0-64
	KERNEL32(ONEROWS, FOURROWS, ROWS6, STORE6, ADDROW)

// func kern6x16RowsPut(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)
TEXT ·kern6x16RowsPut(SB), NOSPLIT, $0-64
	KERNEL32(ONEROWS, FOURROWS, ROWS6, STORE6, PUTROW)

// func kern4x16(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)
TEXT ·kern4x16(SB), NOSPLIT, $0-64
	KERNEL32(ONECOLS, FOURCOLS, COLS4, STORE4, ADDROW)

// func kern4x16Put(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)
TEXT ·kern4x16Put(SB), NOSPLIT, $0-64
	KERNEL32(ONECOLS, FOURCOLS, COLS4, STORE4, PUTROW)

// func kern4x16Rows(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)
TEXT ·kern4x16Rows(SB), NOSPLIT, $0-64
	KERNEL32(ONEROWS, FOURROWS, ROWS4, STORE4, ADDROW)

// func kern4x16RowsPut(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int, rows int)
TEXT ·kern4x16RowsPut(SB), NOSPLIT, $0-64
	KERNEL32(ONEROWS, FOURROWS, ROWS4, STORE4, PUTROW)
