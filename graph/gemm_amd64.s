//go:build amd64 && !openblas && !purego

#include "textflag.h"

// KERNEL is the body of kern4x12 (float64) and kern4x24 (float32), which
// differ only in the element: its size in bytes (SIZE, LOG2 its base-2
// logarithm), and the broadcast, fused multiply-add and add of its
// vectors (BCAST, FMA, ADD). Twelve accumulators Y4-Y15 hold the 4-row
// block, row r in Y(4+3r), Y(5+3r), Y(6+3r); each term broadcasts
// a[l*lda+r] and multiplies it into the three vectors at b[l*ldb] with
// fused multiply-adds.
#define KERNEL(SIZE, LOG2, BCAST, FMA, ADD) \
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
	BCAST (SI), Y3 \
	FMA Y0, Y3, Y4 \
	FMA Y1, Y3, Y5 \
	FMA Y2, Y3, Y6 \
	BCAST (1*SIZE)(SI), Y3 \
	FMA Y0, Y3, Y7 \
	FMA Y1, Y3, Y8 \
	FMA Y2, Y3, Y9 \
	BCAST (2*SIZE)(SI), Y3 \
	FMA Y0, Y3, Y10 \
	FMA Y1, Y3, Y11 \
	FMA Y2, Y3, Y12 \
	BCAST (3*SIZE)(SI), Y3 \
	FMA Y0, Y3, Y13 \
	FMA Y1, Y3, Y14 \
	FMA Y2, Y3, Y15 \
	ADDQ R9, SI \
	ADDQ R10, DI \
	DECQ CX \
	JNZ  loop \
	ADD (DX), Y4, Y4 \
	VMOVUPS Y4, (DX) \
	ADD 32(DX), Y5, Y5 \
	VMOVUPS Y5, 32(DX) \
	ADD 64(DX), Y6, Y6 \
	VMOVUPS Y6, 64(DX) \
	ADDQ R8, DX \
	ADD (DX), Y7, Y7 \
	VMOVUPS Y7, (DX) \
	ADD 32(DX), Y8, Y8 \
	VMOVUPS Y8, 32(DX) \
	ADD 64(DX), Y9, Y9 \
	VMOVUPS Y9, 64(DX) \
	ADDQ R8, DX \
	ADD (DX), Y10, Y10 \
	VMOVUPS Y10, (DX) \
	ADD 32(DX), Y11, Y11 \
	VMOVUPS Y11, 32(DX) \
	ADD 64(DX), Y12, Y12 \
	VMOVUPS Y12, 64(DX) \
	ADDQ R8, DX \
	ADD (DX), Y13, Y13 \
	VMOVUPS Y13, (DX) \
	ADD 32(DX), Y14, Y14 \
	VMOVUPS Y14, 32(DX) \
	ADD 64(DX), Y15, Y15 \
	VMOVUPS Y15, 64(DX) \
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
	KERNEL(8, 3, VBROADCASTSD, VFMADD231PD, VADDPD)

// func kern4x24(k int, a *float32, lda int, b *float32, ldb int, c *float32, ldc int)
TEXT ·kern4x24(SB), NOSPLIT, $0-56
	KERNEL(4, 2, VBROADCASTSS, VFMADD231PS, VADDPS)
