//go:build amd64 && !purego

#include "textflag.h"

// func plainRun(b []byte) (n int, escaped bool)
//
// n is the index of the first byte of b that is a quote, a control
// character, or a backslash that does not start a two-byte escape (\",
// \\, \/, \b, \f, \n, \r, \t): sixteen bytes a step (SSE2, which every
// amd64 has), stepping over the two-byte escapes; len(b) when there is
// none. escaped says whether it stepped over one.
TEXT ·plainRun(SB), NOSPLIT, $0-33
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	XORQ AX, AX
	XORL R10, R10
	CMPQ BX, $16
	JB   short
	MOVQ $0x2222222222222222, DX
	MOVQ DX, X1
	PUNPCKLQDQ X1, X1
	MOVQ $0x5c5c5c5c5c5c5c5c, DX
	MOVQ DX, X2
	PUNPCKLQDQ X2, X2
	MOVQ $0x1f1f1f1f1f1f1f1f, DX
	MOVQ DX, X3
	PUNPCKLQDQ X3, X3
	LEAQ -16(BX), CX // the last offset where sixteen bytes start

loop:
	CMPQ AX, CX
	JA   tail
	MOVOU (SI)(AX*1), X0
	MOVO X0, X4
	PCMPEQB X1, X4 // quotes
	MOVO X0, X5
	PCMPEQB X2, X5 // backslashes
	MOVO X0, X6
	PMINUB X3, X6
	PCMPEQB X0, X6 // bytes <= 0x1f
	POR X4, X5
	POR X5, X6
	PMOVMSKB X6, DX
	TESTL DX, DX
	JNZ  found
	ADDQ $16, AX
	JMP  loop

tail:
	// Fewer than sixteen left: the last sixteen bytes, less those
	// already checked.
	CMPQ AX, BX
	JAE  none
	MOVOU (SI)(CX*1), X0
	MOVO X0, X4
	PCMPEQB X1, X4
	MOVO X0, X5
	PCMPEQB X2, X5
	MOVO X0, X6
	PMINUB X3, X6
	PCMPEQB X0, X6
	POR X4, X5
	POR X5, X6
	PMOVMSKB X6, DX
	MOVQ CX, R11
	MOVQ AX, CX
	SUBQ R11, CX // bytes of the block already checked
	SHRL CX, DX
	MOVQ R11, CX
	TESTL DX, DX
	JZ   none

found:
	BSFL DX, DX
	ADDQ DX, AX
	MOVBLZX (SI)(AX*1), DX
	CMPB DX, $0x5c
	JNE  done
	LEAQ 1(AX), R9
	CMPQ R9, BX
	JAE  done
	MOVBLZX (SI)(R9*1), DX
	CMPB DX, $0x6e // n
	JEQ  escape
	CMPB DX, $0x22 // "
	JEQ  escape
	CMPB DX, $0x5c // \
	JEQ  escape
	CMPB DX, $0x74 // t
	JEQ  escape
	CMPB DX, $0x2f // /
	JEQ  escape
	CMPB DX, $0x72 // r
	JEQ  escape
	CMPB DX, $0x62 // b
	JEQ  escape
	CMPB DX, $0x66 // f
	JEQ  escape
	JMP  done

escape:
	MOVL $1, R10
	ADDQ $2, AX
	JMP  loop

short:
	// Fewer than sixteen bytes in all: one at a time.
	CMPQ AX, BX
	JAE  none
	MOVBLZX (SI)(AX*1), DX
	CMPB DX, $0x22
	JEQ  done
	CMPB DX, $0x20
	JB   done
	CMPB DX, $0x5c
	JEQ  shortescape
	INCQ AX
	JMP  short

shortescape:
	LEAQ 1(AX), R9
	CMPQ R9, BX
	JAE  done
	MOVBLZX (SI)(R9*1), DX
	CMPB DX, $0x6e
	JEQ  shortstep
	CMPB DX, $0x22
	JEQ  shortstep
	CMPB DX, $0x5c
	JEQ  shortstep
	CMPB DX, $0x74
	JEQ  shortstep
	CMPB DX, $0x2f
	JEQ  shortstep
	CMPB DX, $0x72
	JEQ  shortstep
	CMPB DX, $0x62
	JEQ  shortstep
	CMPB DX, $0x66
	JEQ  shortstep
	JMP  done

shortstep:
	MOVL $1, R10
	ADDQ $2, AX
	JMP  short

none:
	MOVQ BX, AX

done:
	MOVQ AX, n+24(FP)
	MOVB R10, escaped+32(FP)
	RET

// func textOnly(b []byte) bool
//
// Whether every byte of b is ASCII and none is NUL: sixty-four bytes a
// step.
TEXT ·textOnly(SB), NOSPLIT, $0-25
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), BX
	XORQ AX, AX
	PXOR X7, X7

wide:
	LEAQ 64(AX), CX
	CMPQ CX, BX
	JA   narrow
	MOVOU 0(SI)(AX*1), X0
	MOVOU 16(SI)(AX*1), X1
	MOVOU 32(SI)(AX*1), X2
	MOVOU 48(SI)(AX*1), X3
	MOVO X0, X4
	POR X1, X4
	POR X2, X4
	POR X3, X4 // any high bit
	PMINUB X1, X0
	PMINUB X2, X0
	PMINUB X3, X0
	PCMPEQB X7, X0 // any NUL
	POR X4, X0
	PMOVMSKB X0, DX
	TESTL DX, DX
	JNZ  no
	MOVQ CX, AX
	JMP  wide

narrow:
	LEAQ 16(AX), CX
	CMPQ CX, BX
	JA   bytes
	MOVOU 0(SI)(AX*1), X0
	MOVO X0, X4
	PCMPEQB X7, X0
	POR X4, X0
	PMOVMSKB X0, DX
	TESTL DX, DX
	JNZ  no
	MOVQ CX, AX
	JMP  narrow

bytes:
	CMPQ AX, BX
	JAE  yes
	MOVBLZX (SI)(AX*1), DX
	TESTB DL, DL
	JEQ  no
	CMPB DL, $0x80
	JAE  no
	INCQ AX
	JMP  bytes

yes:
	MOVB $1, ret+24(FP)
	RET

no:
	MOVB $0, ret+24(FP)
	RET
