@ SPECK-64/128 block encryption (Beaulieu et al., ePrint 2013/404), hand-written for ARMv6-M (Thumb).
@ Round keys are computed on the fly; the l[] words of the key schedule live on the stack.
@ Byte order as in the SPECK implementation guide: key = k0 l0 l1 l2, block = y x (little-endian words).
@
@   void speck64_128_encrypt(const uint8_t key[16], const uint8_t in[8], uint8_t out[8]);
@   void speck64_128_encrypt_n(const uint8_t key[16], uint8_t buf[8], uint32_t n);  /* n times in place */
@
@ Registers: x = r3, y = r4, k = r5, i = r6, t = r7, l pointer = r0, constant 8 = r1 (RORS takes a
@ register amount). Buffers must be 4-byte aligned (Cortex-M0 faults on unaligned LDR/STR).

        .syntax unified
        .thumb
        .text
        .global speck64_128_encrypt
        .type   speck64_128_encrypt, %function
        .thumb_func
speck64_128_encrypt:
        push    {r4-r7, lr}
        sub     sp, #120            @ l[0..28] (116 bytes) + the out pointer at sp+116
        str     r2, [sp, #116]
        ldr     r5, [r0, #0]        @ k0
        ldr     r3, [r0, #4]        @ l0, l1, l2
        str     r3, [sp, #0]
        ldr     r3, [r0, #8]
        str     r3, [sp, #4]
        ldr     r3, [r0, #12]
        str     r3, [sp, #8]
        ldr     r4, [r1, #0]        @ y
        ldr     r3, [r1, #4]        @ x
        mov     r0, sp
        movs    r1, #8
        movs    r6, #0
.Lround:
        rors    r3, r1              @ x = ((x >>> 8) + y) ^ k
        adds    r3, r4
        eors    r3, r5
        lsls    r7, r4, #3          @ y = (y <<< 3) ^ x
        lsrs    r4, r4, #29
        orrs    r4, r7
        eors    r4, r3
        cmp     r6, #26             @ 27 rounds: i = 0..26
        beq     .Ldone
        ldr     r2, [r0, #0]        @ l[i+3] = ((l[i] >>> 8) + k) ^ i
        rors    r2, r1
        adds    r2, r5
        eors    r2, r6
        str     r2, [r0, #12]
        adds    r0, #4
        lsls    r7, r5, #3          @ k = (k <<< 3) ^ l[i+3]
        lsrs    r5, r5, #29
        orrs    r5, r7
        eors    r5, r2
        adds    r6, #1
        b       .Lround
.Ldone:
        ldr     r2, [sp, #116]
        str     r4, [r2, #0]
        str     r3, [r2, #4]
        add     sp, #120
        pop     {r4-r7, pc}
        .size   speck64_128_encrypt, .-speck64_128_encrypt

        .global speck64_128_encrypt_n
        .type   speck64_128_encrypt_n, %function
        .thumb_func
speck64_128_encrypt_n:
        push    {r4-r6, lr}
        movs    r4, r0
        movs    r5, r1
        movs    r6, r2
        beq     .Lndone
.Lnloop:
        movs    r0, r4
        movs    r1, r5
        movs    r2, r5
        bl      speck64_128_encrypt
        subs    r6, #1
        bne     .Lnloop
.Lndone:
        pop     {r4-r6, pc}
        .size   speck64_128_encrypt_n, .-speck64_128_encrypt_n
