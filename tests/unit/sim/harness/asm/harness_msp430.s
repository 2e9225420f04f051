; Routines the harness tests call on MSP430 (original instruction set: runs on every MSP430 chip).
        .text
; uint8_t *xor_into(uint8_t *dst /*R12*/, const uint8_t *src /*R13*/, uint16_t n /*R14*/): dst[i] ^= src[i]
        .global xor_into
        .type   xor_into, @function
xor_into:
        tst     r14
        jz      .Lxdone
.Lxloop:
        mov.b   @r13+, r15
        xor.b   r15, 0(r12)
        inc     r12
        dec     r14
        jnz     .Lxloop
.Lxdone:
        ret
        .size   xor_into, .-xor_into

; uint16_t sum6(a, b, c, d, e, f): a..d in R12..R15, e and f on the stack above the return address
        .global sum6
        .type   sum6, @function
sum6:
        add     r13, r12
        add     r14, r12
        add     r15, r12
        add     2(sp), r12
        add     4(sp), r12
        ret
        .size   sum6, .-sum6

; uses_stack: 6 pushes (12 bytes) + a CALL (2) + one push in the callee (2) = 16 bytes below entry SP
        .global uses_stack
        .type   uses_stack, @function
uses_stack:
        push    r4
        push    r5
        push    r6
        push    r7
        push    r8
        push    r9
        call    #leaf
        pop     r9
        pop     r8
        pop     r7
        pop     r6
        pop     r5
        pop     r4
        ret
        .size   uses_stack, .-uses_stack
leaf:
        push    r10
        mov     #0x1234, r12
        pop     r10
        ret

        .global spin
        .type   spin, @function
spin:
        jmp     spin
        .size   spin, .-spin

; uint16_t bump(void): return ++counter (counter is initialised .data)
        .global bump
        .type   bump, @function
bump:
        inc     &counter
        mov     &counter, r12
        ret
        .size   bump, .-bump

        .global two_phase
        .type   two_phase, @function
two_phase:
        mov     #1, r12
        .global midpoint
midpoint:
        mov     #2, r12
        ret
        .size   two_phase, .-two_phase

        .section .rodata
        .global table
        .type   table, @object
table:
        .byte   1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
        .size   table, 16

        .data
        .global counter
        .type   counter, @object
counter:
        .word   41
        .size   counter, 2
        .global dwords
        .type   dwords, @object
dwords:
        .word   0x1111, 0x2222, 0x3333
        .size   dwords, 6

        .bss
        .global scratch
        .type   scratch, @object
scratch:
        .skip   12
        .size   scratch, 12

        .section .benchbuf, "aw", @nobits
        .global big
        .type   big, @object
big:
        .skip   1024
        .size   big, 1024
