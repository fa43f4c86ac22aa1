/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A function with three names, for tests/helpers/names_work.cc: count n down. */
	.text
	.globl	names_asm_loop
	.type	names_asm_loop, @function
	.globl	__names_asm_loop
	.type	__names_asm_loop, @function
	.globl	__GI_names_asm_loop
	.type	__GI_names_asm_loop, @function
names_asm_loop:
__names_asm_loop:
__GI_names_asm_loop:
	.cfi_startproc
	mov	%rdi, %rax
1:	dec	%rax
	jnz	1b
	ret
	.cfi_endproc
	.size	names_asm_loop, .-names_asm_loop
	.size	__names_asm_loop, .-__names_asm_loop
	.size	__GI_names_asm_loop, .-__GI_names_asm_loop
	.section .note.GNU-stack,"",@progbits
