//go:build amd64 && !purego

#include "textflag.h"

// Each loop takes one vector (32 bytes) per iteration, n / width of them
// (LOG2: the base-2 logarithm of the width, 2 for float64, 3 for float32).

// BIN is d = a OP b (OP's Go operand order: OP b, a, dst is a - b for a
// subtraction).
#define BIN(MOV, OP, LOG2) \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ b+16(FP), DX \
	MOVQ n+24(FP), CX \
	SHRQ $LOG2, CX \
binloop: \
	MOV (SI), Y0 \
	OP (DX), Y0, Y0 \
	MOV Y0, (DI) \
	ADDQ $32, SI \
	ADDQ $32, DX \
	ADDQ $32, DI \
	DECQ CX \
	JNZ binloop \
	VZEROUPPER \
	RET

// MULADD is d = d + a b, the product rounded first.
#define MULADD(MOV, MUL, ADD, LOG2) \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ b+16(FP), DX \
	MOVQ n+24(FP), CX \
	SHRQ $LOG2, CX \
maloop: \
	MOV (SI), Y0 \
	MUL (DX), Y0, Y0 \
	ADD (DI), Y0, Y0 \
	MOV Y0, (DI) \
	ADDQ $32, SI \
	ADDQ $32, DX \
	ADDQ $32, DI \
	DECQ CX \
	JNZ maloop \
	VZEROUPPER \
	RET

// ADDTO is d = d + a.
#define ADDTO(MOV, ADD, LOG2) \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	MOVQ n+16(FP), CX \
	SHRQ $LOG2, CX \
atloop: \
	MOV (DI), Y0 \
	ADD (SI), Y0, Y0 \
	MOV Y0, (DI) \
	ADDQ $32, SI \
	ADDQ $32, DI \
	DECQ CX \
	JNZ atloop \
	VZEROUPPER \
	RET

// SCALE is d = a s (SCALEADD: d = d + a s, the product rounded first); s
// is broadcast from the argument at s+16(FP).
#define SCALE(MOV, BCAST, MUL, LOG2) \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	BCAST s+16(FP), Y1 \
	MOVQ n+24(FP), CX \
	SHRQ $LOG2, CX \
scloop: \
	MOV (SI), Y0 \
	MUL Y1, Y0, Y0 \
	MOV Y0, (DI) \
	ADDQ $32, SI \
	ADDQ $32, DI \
	DECQ CX \
	JNZ scloop \
	VZEROUPPER \
	RET

#define SCALEADD(MOV, BCAST, MUL, ADD, LOG2) \
	MOVQ d+0(FP), DI \
	MOVQ a+8(FP), SI \
	BCAST s+16(FP), Y1 \
	MOVQ n+24(FP), CX \
	SHRQ $LOG2, CX \
saloop: \
	MOV (SI), Y0 \
	MUL Y1, Y0, Y0 \
	ADD (DI), Y0, Y0 \
	MOV Y0, (DI) \
	ADDQ $32, SI \
	ADDQ $32, DI \
	DECQ CX \
	JNZ saloop \
	VZEROUPPER \
	RET

// func add64(d, a, b *float64, n int)
TEXT ·add64(SB), NOSPLIT, $0-32
	BIN(VMOVUPD, VADDPD, 2)

// func add32(d, a, b *float32, n int)
TEXT ·add32(SB), NOSPLIT, $0-32
	BIN(VMOVUPS, VADDPS, 3)

// func sub64(d, a, b *float64, n int)
TEXT ·sub64(SB), NOSPLIT, $0-32
	BIN(VMOVUPD, VSUBPD, 2)

// func sub32(d, a, b *float32, n int)
TEXT ·sub32(SB), NOSPLIT, $0-32
	BIN(VMOVUPS, VSUBPS, 3)

// func mul64(d, a, b *float64, n int)
TEXT ·mul64(SB), NOSPLIT, $0-32
	BIN(VMOVUPD, VMULPD, 2)

// func mul32(d, a, b *float32, n int)
TEXT ·mul32(SB), NOSPLIT, $0-32
	BIN(VMOVUPS, VMULPS, 3)

// func mulAdd64(d, a, b *float64, n int)
TEXT ·mulAdd64(SB), NOSPLIT, $0-32
	MULADD(VMOVUPD, VMULPD, VADDPD, 2)

// func mulAdd32(d, a, b *float32, n int)
TEXT ·mulAdd32(SB), NOSPLIT, $0-32
	MULADD(VMOVUPS, VMULPS, VADDPS, 3)

// func addTo64(d, a *float64, n int)
TEXT ·addTo64(SB), NOSPLIT, $0-24
	ADDTO(VMOVUPD, VADDPD, 2)

// func addTo32(d, a *float32, n int)
TEXT ·addTo32(SB), NOSPLIT, $0-24
	ADDTO(VMOVUPS, VADDPS, 3)

// func scale64(d, a *float64, s float64, n int)
TEXT ·scale64(SB), NOSPLIT, $0-32
	SCALE(VMOVUPD, VBROADCASTSD, VMULPD, 2)

// func scale32(d, a *float32, s float32, n int)
TEXT ·scale32(SB), NOSPLIT, $0-32
	SCALE(VMOVUPS, VBROADCASTSS, VMULPS, 3)

// func scaleAdd64(d, a *float64, s float64, n int)
TEXT ·scaleAdd64(SB), NOSPLIT, $0-32
	SCALEADD(VMOVUPD, VBROADCASTSD, VMULPD, VADDPD, 2)

// func scaleAdd32(d, a *float32, s float32, n int)
TEXT ·scaleAdd32(SB), NOSPLIT, $0-32
	SCALEADD(VMOVUPS, VBROADCASTSS, VMULPS, VADDPS, 3)

DATA ones64<>+0(SB)/8, $0x3ff0000000000000
GLOBL ones64<>(SB), RODATA|NOPTR, $8
DATA ones32<>+0(SB)/4, $0x3f800000
GLOBL ones32<>(SB), RODATA|NOPTR, $4

#define ONES64 ones64<>(SB)
#define ONES32 ones32<>(SB)

// The gradients through an activation whose values are y: d = g f(y),
// or d = d + g f(y) (the Add variants), with f the sigmoid's derivative
// computed as (g y) (1 - y), or tanh's, g (1 - y y); Y1 holds ones.

// func sigmoidGrad64(d, dy, y *float64, n int)
TEXT ·sigmoidGrad64(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ dy+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	VBROADCASTSD ONES64, Y1
loop:
	VMOVUPD (SI), Y0
	VMULPD (DX), Y0, Y0
	VMOVUPD Y1, Y3
	VSUBPD (DX), Y3, Y3
	VMULPD Y3, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
	RET

// func sigmoidGradAdd64(d, dy, y *float64, n int)
TEXT ·sigmoidGradAdd64(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ dy+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	VBROADCASTSD ONES64, Y1
loop:
	VMOVUPD (SI), Y0
	VMULPD (DX), Y0, Y0
	VMOVUPD Y1, Y3
	VSUBPD (DX), Y3, Y3
	VMULPD Y3, Y0, Y0
	VADDPD (DI), Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
	RET

// func sigmoidGrad32(d, dy, y *float32, n int)
TEXT ·sigmoidGrad32(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ dy+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	VBROADCASTSS ONES32, Y1
loop:
	VMOVUPS (SI), Y0
	VMULPS (DX), Y0, Y0
	VMOVUPS Y1, Y3
	VSUBPS (DX), Y3, Y3
	VMULPS Y3, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
	RET

// func sigmoidGradAdd32(d, dy, y *float32, n int)
TEXT ·sigmoidGradAdd32(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ dy+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	VBROADCASTSS ONES32, Y1
loop:
	VMOVUPS (SI), Y0
	VMULPS (DX), Y0, Y0
	VMOVUPS Y1, Y3
	VSUBPS (DX), Y3, Y3
	VMULPS Y3, Y0, Y0
	VADDPS (DI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
	RET

// func tanhGrad64(d, dy, y *float64, n int)
TEXT ·tanhGrad64(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ dy+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	VBROADCASTSD ONES64, Y1
loop:
	VMOVUPD (DX), Y2
	VMULPD (DX), Y2, Y2
	VMOVUPD Y1, Y3
	VSUBPD Y2, Y3, Y3
	VMOVUPD (SI), Y0
	VMULPD Y3, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
	RET

// func tanhGradAdd64(d, dy, y *float64, n int)
TEXT ·tanhGradAdd64(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ dy+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	VBROADCASTSD ONES64, Y1
loop:
	VMOVUPD (DX), Y2
	VMULPD (DX), Y2, Y2
	VMOVUPD Y1, Y3
	VSUBPD Y2, Y3, Y3
	VMOVUPD (SI), Y0
	VMULPD Y3, Y0, Y0
	VADDPD (DI), Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
	RET

// func tanhGrad32(d, dy, y *float32, n int)
TEXT ·tanhGrad32(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ dy+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	VBROADCASTSS ONES32, Y1
loop:
	VMOVUPS (DX), Y2
	VMULPS (DX), Y2, Y2
	VMOVUPS Y1, Y3
	VSUBPS Y2, Y3, Y3
	VMOVUPS (SI), Y0
	VMULPS Y3, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
	RET

// func tanhGradAdd32(d, dy, y *float32, n int)
TEXT ·tanhGradAdd32(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ dy+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	SHRQ $3, CX
	VBROADCASTSS ONES32, Y1
loop:
	VMOVUPS (DX), Y2
	VMULPS (DX), Y2, Y2
	VMOVUPS Y1, Y3
	VSUBPS Y2, Y3, Y3
	VMOVUPS (SI), Y0
	VMULPS Y3, Y0, Y0
	VADDPS (DI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNZ loop
	VZEROUPPER
	RET
