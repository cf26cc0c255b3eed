//go:build amd64 && !purego

#include "textflag.h"

// Four float64 lanes of Tanh4's and ExpNeg4's polynomials, one
// instruction per operation of the Go code in the same order (products
// and sums rounded apart, never fused), so that each lane has the Go
// code's bits. Constants, each in four lanes:
#define ABS fmc<>+0(SB)
#define SIGN fmc<>+32(SB)
#define CLAMP fmc<>+64(SB)
#define LOG2E fmc<>+96(SB)
#define ROUND fmc<>+128(SB)
#define LN2HI fmc<>+160(SB)
#define LN2LO fmc<>+192(SB)
#define BIAS fmc<>+224(SB)
#define ONE fmc<>+256(SB)
#define TWO fmc<>+288(SB)
#define TWO52 fmc<>+320(SB)
#define C13 fmc<>+352(SB)
#define C12 fmc<>+384(SB)
#define C11 fmc<>+416(SB)
#define C10 fmc<>+448(SB)
#define C9 fmc<>+480(SB)
#define C8 fmc<>+512(SB)
#define C7 fmc<>+544(SB)
#define C6 fmc<>+576(SB)
#define C5 fmc<>+608(SB)
#define C4 fmc<>+640(SB)
#define C3 fmc<>+672(SB)
#define C2 fmc<>+704(SB)

DATA fmc<>+0(SB)/8, $0x7fffffffffffffff
DATA fmc<>+8(SB)/8, $0x7fffffffffffffff
DATA fmc<>+16(SB)/8, $0x7fffffffffffffff
DATA fmc<>+24(SB)/8, $0x7fffffffffffffff
DATA fmc<>+32(SB)/8, $0x8000000000000000
DATA fmc<>+40(SB)/8, $0x8000000000000000
DATA fmc<>+48(SB)/8, $0x8000000000000000
DATA fmc<>+56(SB)/8, $0x8000000000000000
DATA fmc<>+64(SB)/8, $0x4085e00000000000
DATA fmc<>+72(SB)/8, $0x4085e00000000000
DATA fmc<>+80(SB)/8, $0x4085e00000000000
DATA fmc<>+88(SB)/8, $0x4085e00000000000
DATA fmc<>+96(SB)/8, $0x3ff71547652b82fe
DATA fmc<>+104(SB)/8, $0x3ff71547652b82fe
DATA fmc<>+112(SB)/8, $0x3ff71547652b82fe
DATA fmc<>+120(SB)/8, $0x3ff71547652b82fe
DATA fmc<>+128(SB)/8, $0x4338000000000000
DATA fmc<>+136(SB)/8, $0x4338000000000000
DATA fmc<>+144(SB)/8, $0x4338000000000000
DATA fmc<>+152(SB)/8, $0x4338000000000000
DATA fmc<>+160(SB)/8, $0x3fe62e42fee00000
DATA fmc<>+168(SB)/8, $0x3fe62e42fee00000
DATA fmc<>+176(SB)/8, $0x3fe62e42fee00000
DATA fmc<>+184(SB)/8, $0x3fe62e42fee00000
DATA fmc<>+192(SB)/8, $0x3dea39ef35793c76
DATA fmc<>+200(SB)/8, $0x3dea39ef35793c76
DATA fmc<>+208(SB)/8, $0x3dea39ef35793c76
DATA fmc<>+216(SB)/8, $0x3dea39ef35793c76
DATA fmc<>+224(SB)/8, $0x00000000000003ff
DATA fmc<>+232(SB)/8, $0x00000000000003ff
DATA fmc<>+240(SB)/8, $0x00000000000003ff
DATA fmc<>+248(SB)/8, $0x00000000000003ff
DATA fmc<>+256(SB)/8, $0x3ff0000000000000
DATA fmc<>+264(SB)/8, $0x3ff0000000000000
DATA fmc<>+272(SB)/8, $0x3ff0000000000000
DATA fmc<>+280(SB)/8, $0x3ff0000000000000
DATA fmc<>+288(SB)/8, $0x4000000000000000
DATA fmc<>+296(SB)/8, $0x4000000000000000
DATA fmc<>+304(SB)/8, $0x4000000000000000
DATA fmc<>+312(SB)/8, $0x4000000000000000
DATA fmc<>+320(SB)/8, $0x4330000000000000
DATA fmc<>+328(SB)/8, $0x4330000000000000
DATA fmc<>+336(SB)/8, $0x4330000000000000
DATA fmc<>+344(SB)/8, $0x4330000000000000
DATA fmc<>+352(SB)/8, $0x3de6124613a86d09
DATA fmc<>+360(SB)/8, $0x3de6124613a86d09
DATA fmc<>+368(SB)/8, $0x3de6124613a86d09
DATA fmc<>+376(SB)/8, $0x3de6124613a86d09
DATA fmc<>+384(SB)/8, $0x3e21eed8eff8d898
DATA fmc<>+392(SB)/8, $0x3e21eed8eff8d898
DATA fmc<>+400(SB)/8, $0x3e21eed8eff8d898
DATA fmc<>+408(SB)/8, $0x3e21eed8eff8d898
DATA fmc<>+416(SB)/8, $0x3e5ae64567f544e4
DATA fmc<>+424(SB)/8, $0x3e5ae64567f544e4
DATA fmc<>+432(SB)/8, $0x3e5ae64567f544e4
DATA fmc<>+440(SB)/8, $0x3e5ae64567f544e4
DATA fmc<>+448(SB)/8, $0x3e927e4fb7789f5c
DATA fmc<>+456(SB)/8, $0x3e927e4fb7789f5c
DATA fmc<>+464(SB)/8, $0x3e927e4fb7789f5c
DATA fmc<>+472(SB)/8, $0x3e927e4fb7789f5c
DATA fmc<>+480(SB)/8, $0x3ec71de3a556c734
DATA fmc<>+488(SB)/8, $0x3ec71de3a556c734
DATA fmc<>+496(SB)/8, $0x3ec71de3a556c734
DATA fmc<>+504(SB)/8, $0x3ec71de3a556c734
DATA fmc<>+512(SB)/8, $0x3efa01a01a01a01a
DATA fmc<>+520(SB)/8, $0x3efa01a01a01a01a
DATA fmc<>+528(SB)/8, $0x3efa01a01a01a01a
DATA fmc<>+536(SB)/8, $0x3efa01a01a01a01a
DATA fmc<>+544(SB)/8, $0x3f2a01a01a01a01a
DATA fmc<>+552(SB)/8, $0x3f2a01a01a01a01a
DATA fmc<>+560(SB)/8, $0x3f2a01a01a01a01a
DATA fmc<>+568(SB)/8, $0x3f2a01a01a01a01a
DATA fmc<>+576(SB)/8, $0x3f56c16c16c16c17
DATA fmc<>+584(SB)/8, $0x3f56c16c16c16c17
DATA fmc<>+592(SB)/8, $0x3f56c16c16c16c17
DATA fmc<>+600(SB)/8, $0x3f56c16c16c16c17
DATA fmc<>+608(SB)/8, $0x3f81111111111111
DATA fmc<>+616(SB)/8, $0x3f81111111111111
DATA fmc<>+624(SB)/8, $0x3f81111111111111
DATA fmc<>+632(SB)/8, $0x3f81111111111111
DATA fmc<>+640(SB)/8, $0x3fa5555555555555
DATA fmc<>+648(SB)/8, $0x3fa5555555555555
DATA fmc<>+656(SB)/8, $0x3fa5555555555555
DATA fmc<>+664(SB)/8, $0x3fa5555555555555
DATA fmc<>+672(SB)/8, $0x3fc5555555555555
DATA fmc<>+680(SB)/8, $0x3fc5555555555555
DATA fmc<>+688(SB)/8, $0x3fc5555555555555
DATA fmc<>+696(SB)/8, $0x3fc5555555555555
DATA fmc<>+704(SB)/8, $0x3fe0000000000000
DATA fmc<>+712(SB)/8, $0x3fe0000000000000
DATA fmc<>+720(SB)/8, $0x3fe0000000000000
DATA fmc<>+728(SB)/8, $0x3fe0000000000000
GLOBL fmc<>(SB), RODATA|NOPTR, $736

// REDUCE reads a = Y1 (>= 0 or NaN), writes r into Y5 and s = 2^k into
// Y6, where -min(a, 700) = k ln 2 + r (reduce of fastmath.go). Uses Y2-Y6.
#define REDUCE \
	VMOVUPD CLAMP, Y6 \
	VMINPD Y1, Y6, Y1 \
	VXORPD SIGN, Y1, Y1 \
	VMULPD LOG2E, Y1, Y2 \
	VADDPD ROUND, Y2, Y2 \
	VSUBPD ROUND, Y2, Y3 \
	VMULPD LN2HI, Y3, Y4 \
	VSUBPD Y4, Y1, Y5 \
	VMULPD LN2LO, Y3, Y4 \
	VSUBPD Y4, Y5, Y5 \
	VPSUBQ ROUND, Y2, Y6 \
	VPADDQ BIAS, Y6, Y6 \
	VPSLLQ $52, Y6, Y6

// LONG starts the polynomial q of expNeg4 in Y7 with its six leading
// terms (the long polynomial); SHORT with c7 alone (the short one).
#define LONG \
	VMULPD C13, Y5, Y7 \
	VADDPD C12, Y7, Y7 \
	VMULPD Y5, Y7, Y7 \
	VADDPD C11, Y7, Y7 \
	VMULPD Y5, Y7, Y7 \
	VADDPD C10, Y7, Y7 \
	VMULPD Y5, Y7, Y7 \
	VADDPD C9, Y7, Y7 \
	VMULPD Y5, Y7, Y7 \
	VADDPD C8, Y7, Y7 \
	VMULPD Y5, Y7, Y7 \
	VADDPD C7, Y7, Y7

#define SHORT \
	VMOVUPD C7, Y7

// EXPM1 ends the polynomial and leaves m = r + r^2 q(r) = expm1(r) in Y7.
#define EXPM1 \
	VMULPD Y5, Y7, Y7 \
	VADDPD C6, Y7, Y7 \
	VMULPD Y5, Y7, Y7 \
	VADDPD C5, Y7, Y7 \
	VMULPD Y5, Y7, Y7 \
	VADDPD C4, Y7, Y7 \
	VMULPD Y5, Y7, Y7 \
	VADDPD C3, Y7, Y7 \
	VMULPD Y5, Y7, Y7 \
	VADDPD C2, Y7, Y7 \
	VMULPD Y5, Y7, Y7 \
	VMULPD Y5, Y7, Y7 \
	VADDPD Y5, Y7, Y7

// TANH writes into Y8 the tanh of the four values in Y0 (Tanh4).
#define TANH(POLY) \
	VANDPD ABS, Y0, Y1 \
	VADDPD Y1, Y1, Y1 \
	REDUCE \
	POLY \
	EXPM1 \
	VMULPD Y7, Y6, Y8 \
	VSUBPD ONE, Y6, Y9 \
	VADDPD Y9, Y8, Y8 \
	VADDPD TWO, Y8, Y9 \
	VXORPD SIGN, Y8, Y8 \
	VDIVPD Y9, Y8, Y8 \
	VANDPD ABS, Y8, Y8 \
	VANDPD SIGN, Y0, Y10 \
	VORPD Y10, Y8, Y8

// SIGMOID writes into Y8 the sigmoid of the four values in Y0 (ExpNeg4,
// then sigmoidOf).
#define SIGMOID(POLY) \
	VANDPD ABS, Y0, Y1 \
	REDUCE \
	POLY \
	EXPM1 \
	VADDPD ONE, Y7, Y8 \
	VMULPD Y8, Y6, Y8 \
	VPSRLQ $63, Y0, Y9 \
	VORPD TWO52, Y9, Y9 \
	VSUBPD TWO52, Y9, Y9 \
	VMULPD Y9, Y8, Y10 \
	VMOVUPD ONE, Y11 \
	VSUBPD Y9, Y11, Y11 \
	VADDPD Y11, Y10, Y10 \
	VADDPD ONE, Y8, Y8 \
	VDIVPD Y8, Y10, Y8

// EXPNEG writes into Y8 exp(-|x|) of the four values x in Y0 (ExpNeg4 of
// their absolute values).
#define EXPNEG(POLY) \
	VANDPD ABS, Y0, Y1 \
	REDUCE \
	POLY \
	EXPM1 \
	VADDPD ONE, Y7, Y8 \
	VMULPD Y8, Y6, Y8

// LOOP64 applies F(LONG) to n float64s, four at a time; LOOP32 applies
// F(SHORT) to n float32s, four at a time, each widened to float64 and the
// result rounded back.
#define LOOP64(F) \
	MOVQ dst+0(FP), DI \
	MOVQ src+8(FP), SI \
	MOVQ n+16(FP), CX \
	SHRQ $2, CX \
loop: \
	VMOVUPD (SI), Y0 \
	F(LONG) \
	VMOVUPD Y8, (DI) \
	ADDQ $32, SI \
	ADDQ $32, DI \
	DECQ CX \
	JNZ loop \
	VZEROUPPER \
	RET

#define LOOP32(F) \
	MOVQ dst+0(FP), DI \
	MOVQ src+8(FP), SI \
	MOVQ n+16(FP), CX \
	SHRQ $2, CX \
loop: \
	VCVTPS2PD (SI), Y0 \
	F(SHORT) \
	VCVTPD2PSY Y8, X8 \
	VMOVUPS X8, (DI) \
	ADDQ $16, SI \
	ADDQ $16, DI \
	DECQ CX \
	JNZ loop \
	VZEROUPPER \
	RET

// LOOP32TO64 is LOOP32 with the float64 results stored unrounded.
#define LOOP32TO64(F) \
	MOVQ dst+0(FP), DI \
	MOVQ src+8(FP), SI \
	MOVQ n+16(FP), CX \
	SHRQ $2, CX \
loop: \
	VCVTPS2PD (SI), Y0 \
	F(SHORT) \
	VMOVUPD Y8, (DI) \
	ADDQ $16, SI \
	ADDQ $32, DI \
	DECQ CX \
	JNZ loop \
	VZEROUPPER \
	RET

// func tanh64(dst, src *float64, n int)
TEXT ·tanh64(SB), NOSPLIT, $0-24
	LOOP64(TANH)

// func sigmoid64(dst, src *float64, n int)
TEXT ·sigmoid64(SB), NOSPLIT, $0-24
	LOOP64(SIGMOID)

// func tanh32(dst, src *float32, n int)
TEXT ·tanh32(SB), NOSPLIT, $0-24
	LOOP32(TANH)

// func sigmoid32(dst, src *float32, n int)
TEXT ·sigmoid32(SB), NOSPLIT, $0-24
	LOOP32(SIGMOID)

// func expNegAbs64(dst, src *float64, n int)
TEXT ·expNegAbs64(SB), NOSPLIT, $0-24
	LOOP64(EXPNEG)

// func expNegAbs32(dst *float64, src *float32, n int)
TEXT ·expNegAbs32(SB), NOSPLIT, $0-24
	LOOP32TO64(EXPNEG)
