//go:build !purego

#include "textflag.h"

// func joinAVX2(dst, src []int32)
TEXT ·joinAVX2(SB), NOSPLIT, $0-48
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI

loop32:
	CMPQ CX, $32
	JLT  loop8
	VMOVDQU (DI), Y0
	VMOVDQU 32(DI), Y1
	VMOVDQU 64(DI), Y2
	VMOVDQU 96(DI), Y3
	VPMAXSD (SI), Y0, Y0
	VPMAXSD 32(SI), Y1, Y1
	VPMAXSD 64(SI), Y2, Y2
	VPMAXSD 96(SI), Y3, Y3
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	ADDQ $128, DI
	ADDQ $128, SI
	SUBQ $32, CX
	JMP  loop32

loop8:
	CMPQ CX, $8
	JLT  tail
	VMOVDQU (DI), Y0
	VPMAXSD (SI), Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	SUBQ $8, CX
	JMP  loop8

tail:
	VZEROUPPER
	TESTQ CX, CX
	JEQ   done

tailloop:
	MOVL  (DI), AX
	MOVL  (SI), BX
	CMPL  BX, AX
	JLE   next
	MOVL  BX, (DI)

next:
	ADDQ $4, DI
	ADDQ $4, SI
	DECQ CX
	JNZ  tailloop

done:
	RET
