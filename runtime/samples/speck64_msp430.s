; SPECK-64/128 block encryption (Beaulieu et al., ePrint 2013/404), hand-written for MSP430.
; Only original MSP430 instructions (runs on the 1xx CPU and on CPUXV2), 16-bit CALL/RET.
; Round keys are computed on the fly; the l[] words of the key schedule live on the stack.
; Byte order as in the SPECK implementation guide: key = k0 l0 l1 l2, block = y x,
; each a little-endian 32-bit word, held here as (low, high) register pairs.
;
;   void speck64_128_encrypt(const uint8_t key[16], const uint8_t in[8], uint8_t out[8]);
;   void speck64_128_encrypt_n(const uint8_t key[16], uint8_t buf[8], uint16_t n);  /* n times in place */
;
; Registers: x = r5:r4, y = r7:r6, k = r9:r8, t = r10, l pointer = r11, round i = r15.
; Buffers must be 2-byte aligned (word accesses). in may equal out.

        .text
        .global speck64_128_encrypt
        .type   speck64_128_encrypt, @function
speck64_128_encrypt:
        push    r4                  ; r4..r10 are callee-saved in the MSP430 EABI
        push    r5
        push    r6
        push    r7
        push    r8
        push    r9
        push    r10
        sub     #116, sp            ; l[0..28]: 3 key words + 26 generated
        mov     @r12+, r8           ; k0
        mov     @r12+, r9
        mov     sp, r11
        mov     @r12+, 0(r11)       ; l0, l1, l2
        mov     @r12+, 2(r11)
        mov     @r12+, 4(r11)
        mov     @r12+, 6(r11)
        mov     @r12+, 8(r11)
        mov     @r12+, 10(r11)
        mov     @r13+, r6           ; y
        mov     @r13+, r7
        mov     @r13+, r4           ; x
        mov     @r13, r5
        clr     r15
.Lround:
        ; x = ((x >>> 8) + y) ^ k. Rotating a 32-bit pair by 8: swap the bytes of each half,
        ; then exchange the two high bytes (t = (lo ^ hi) & 0xff00).
        swpb    r4
        swpb    r5
        mov     r4, r10
        xor     r5, r10
        and     #0xff00, r10
        xor     r10, r4
        xor     r10, r5
        add     r6, r4
        addc    r7, r5
        xor     r8, r4
        xor     r9, r5
        ; y = (y <<< 3) ^ x: three 1-bit rotates (shift low, shift high, carry back into bit 0)
        rla     r6
        rlc     r7
        adc     r6
        rla     r6
        rlc     r7
        adc     r6
        rla     r6
        rlc     r7
        adc     r6
        xor     r4, r6
        xor     r5, r7
        cmp     #26, r15            ; 27 rounds: i = 0..26
        jeq     .Ldone
        ; key schedule: l[i+3] = ((l[i] >>> 8) + k) ^ i ; k = (k <<< 3) ^ l[i+3]
        mov     @r11+, r12
        mov     @r11+, r13
        swpb    r12
        swpb    r13
        mov     r12, r10
        xor     r13, r10
        and     #0xff00, r10
        xor     r10, r12
        xor     r10, r13
        add     r8, r12
        addc    r9, r13
        xor     r15, r12
        mov     r12, 8(r11)         ; r11 already advanced by 4: l[i+3] is at +8
        mov     r13, 10(r11)
        rla     r8
        rlc     r9
        adc     r8
        rla     r8
        rlc     r9
        adc     r8
        rla     r8
        rlc     r9
        adc     r8
        xor     r12, r8
        xor     r13, r9
        inc     r15
        jmp     .Lround
.Ldone:
        mov     r6, 0(r14)
        mov     r7, 2(r14)
        mov     r4, 4(r14)
        mov     r5, 6(r14)
        add     #116, sp
        pop     r10
        pop     r9
        pop     r8
        pop     r7
        pop     r6
        pop     r5
        pop     r4
        ret
        .size   speck64_128_encrypt, .-speck64_128_encrypt

        .global speck64_128_encrypt_n
        .type   speck64_128_encrypt_n, @function
speck64_128_encrypt_n:
        push    r4
        push    r5
        push    r6
        mov     r12, r4
        mov     r13, r5
        mov     r14, r6
        tst     r6
        jz      .Lndone
.Lnloop:
        mov     r4, r12
        mov     r5, r13
        mov     r5, r14
        call    #speck64_128_encrypt
        dec     r6
        jnz     .Lnloop
.Lndone:
        pop     r6
        pop     r5
        pop     r4
        ret
        .size   speck64_128_encrypt_n, .-speck64_128_encrypt_n
