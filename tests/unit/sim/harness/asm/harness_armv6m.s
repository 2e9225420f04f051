@ Routines the harness tests call on ARMv6-M.
        .syntax unified
        .thumb
        .text
@ uint8_t *xor_into(uint8_t *dst, const uint8_t *src, uint32_t n): dst[i] ^= src[i]
        .global xor_into
        .type   xor_into, %function
        .thumb_func
xor_into:
        push    {r4, lr}
        cmp     r2, #0
        beq     .Lxdone
.Lxloop:
        ldrb    r3, [r1]
        ldrb    r4, [r0]
        eors    r3, r4
        strb    r3, [r0]
        adds    r0, #1
        adds    r1, #1
        subs    r2, #1
        bne     .Lxloop
.Lxdone:
        pop     {r4, pc}
        .size   xor_into, .-xor_into

@ uint32_t sum6(a, b, c, d, e, f): a..d in r0..r3, e and f at [sp] and [sp, #4]
        .global sum6
        .type   sum6, %function
        .thumb_func
sum6:
        adds    r0, r1
        adds    r0, r2
        adds    r0, r3
        ldr     r1, [sp, #0]
        adds    r0, r1
        ldr     r1, [sp, #4]
        adds    r0, r1
        bx      lr
        .size   sum6, .-sum6

@ uses_stack: push of 5 registers (20 bytes) + the callee's push of 2 (8) = 28 bytes below entry SP
        .global uses_stack
        .type   uses_stack, %function
        .thumb_func
uses_stack:
        push    {r4-r7, lr}
        bl      leaf
        pop     {r4-r7, pc}
        .size   uses_stack, .-uses_stack
        .thumb_func
leaf:
        push    {r4, lr}
        ldr     r0, =0x1234
        pop     {r4, pc}
        .ltorg

        .global spin
        .type   spin, %function
        .thumb_func
spin:
        b       spin
        .size   spin, .-spin

@ uint32_t bump(void): return ++counter (16-bit counter in initialised .data)
        .global bump
        .type   bump, %function
        .thumb_func
bump:
        ldr     r1, =counter
        ldrh    r0, [r1]
        adds    r0, #1
        strh    r0, [r1]
        bx      lr
        .ltorg
        .size   bump, .-bump

        .global two_phase
        .type   two_phase, %function
        .thumb_func
two_phase:
        movs    r0, #1
        .global midpoint
        .thumb_func
midpoint:
        movs    r0, #2
        bx      lr
        .size   two_phase, .-two_phase

        .section .rodata
        .global table
        .type   table, %object
table:
        .byte   1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16
        .size   table, 16

        .data
        .global counter
        .type   counter, %object
counter:
        .hword  41
        .size   counter, 2
        .global dwords
        .type   dwords, %object
dwords:
        .hword  0x1111, 0x2222, 0x3333
        .size   dwords, 6

        .bss
        .global scratch
        .type   scratch, %object
scratch:
        .skip   12
        .size   scratch, 12

        .section .benchbuf, "aw", %nobits
        .global big
        .type   big, %object
big:
        .skip   1024
        .size   big, 1024
