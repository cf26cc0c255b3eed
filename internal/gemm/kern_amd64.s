//go:build amd64 && !purego

#include "textflag.h"

// ROW adds the term a[l*lda+r] b[l*ldb : l*ldb+3 vectors] into the
// accumulators of row r (R0, R1, R2); a[l*lda+r] is at OFF(SI), the
// vectors of b in Y0-Y2.
#define ROW(BCAST, FMA, OFF, R0, R1, R2) \
	BCAST OFF(SI), Y3 \
	FMA Y0, Y3, R0 \
	FMA Y1, Y3, R1 \
	FMA Y2, Y3, R2

// ADDROW adds the accumulators of a row (R0, R1, R2) into the row of c at
// DX; PUTROW writes them there.
#define ADDROW(ADD, R0, R1, R2) \
	ADD (DX), R0, R0 \
	VMOVUPS R0, (DX) \
	ADD 32(DX), R1, R1 \
	VMOVUPS R1, 32(DX) \
	ADD 64(DX), R2, R2 \
	VMOVUPS R2, 64(DX)

#define PUTROW(ADD, R0, R1, R2) \
	VMOVUPS R0, (DX) \
	VMOVUPS R1, 32(DX) \
	VMOVUPS R2, 64(DX)

// KERNEL is the body of kern4x12 (float64) and kern4x24 (float32), which
// add the block into c (STORE: ADDROW), and of kern4x12Put and kern4x24Put,
// which write it (STORE: PUTROW); the types differ only in the element: its size in bytes (SIZE, LOG2 its base-2
// logarithm), and the broadcast, fused multiply-add and add of its
// vectors (BCAST, FMA, ADD). Twelve accumulators Y4-Y15 hold the 4-row
// block, row r in Y(4+3r), Y(5+3r), Y(6+3r); each term broadcasts
// a[l*lda+r] and multiplies it into the three vectors at b[l*ldb] with
// fused multiply-adds.
#define KERNEL(SIZE, LOG2, BCAST, FMA, ADD, STORE) \
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
	VXORPS Y15, Y15, Y15 \
loop: \
	VMOVUPS (DI), Y0 \
	VMOVUPS 32(DI), Y1 \
	VMOVUPS 64(DI), Y2 \
	ROW(BCAST, FMA, 0, Y4, Y5, Y6) \
	ROW(BCAST, FMA, (1*SIZE), Y7, Y8, Y9) \
	ROW(BCAST, FMA, (2*SIZE), Y10, Y11, Y12) \
	ROW(BCAST, FMA, (3*SIZE), Y13, Y14, Y15) \
	ADDQ R9, SI \
	ADDQ R10, DI \
	DECQ CX \
	JNZ  loop \
	STORE(ADD, Y4, Y5, Y6) \
	ADDQ R8, DX \
	STORE(ADD, Y7, Y8, Y9) \
	ADDQ R8, DX \
	STORE(ADD, Y10, Y11, Y12) \
	ADDQ R8, DX \
	STORE(ADD, Y13, Y14, Y15) \
	VZEROUPPER \
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

// func xgetbv0() (eax uint32)
TEXT ·xgetbv0(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	RET

// func kern4x12(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)
TEXT ·kern4x12(SB), NOSPLIT, $0-56
	KERNEL(8, 3, VBROADCASTSD, VFMADD231PD, VADDPD, ADDROW)

// func kern4x24(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
TEXT ·kern4x24(SB), NOSPLIT, $0-56
	KERNEL(4, 2, VBROADCASTSS, VFMADD231PS, VADDPS, ADDROW)

// func kern4x12Put(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int)
TEXT ·kern4x12Put(SB), NOSPLIT, $0-56
	KERNEL(8, 3, VBROADCASTSD, VFMADD231PD, VADDPD, PUTROW)

// func kern4x24Put(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
TEXT ·kern4x24Put(SB), NOSPLIT, $0-56
	KERNEL(4, 2, VBROADCASTSS, VFMADD231PS, VADDPS, PUTROW)
