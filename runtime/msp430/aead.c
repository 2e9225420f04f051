/* crypto_aead_encrypt / crypto_aead_decrypt over the generated functions (see aedsl_runtime.h).
 *
 * Without AEDSL_GLUE this file compiles to nothing: aedsl/engines/sim.py links every
 * runtime/msp430/*.c into its test ELFs without a glue header, and those call the generated
 * functions directly.
 */
#ifdef AEDSL_GLUE
#include AEDSL_GLUE
#include "aedsl_runtime.h"
#include <stdint.h>

/* Hides a value from the optimiser, so it cannot turn arithmetic on the tag verdict back into a
 * branch (e.g. "if the tag was good, skip the wipe"). Costs nothing: an empty asm. */
static inline aedsl_word_t opaque(aedsl_word_t x)
{
    __asm__ volatile("" : "+r"(x));
    return x;
}

/* The ciphertext length: mlen passed `too_long`, so it is one word at most AEDSL_MAX_LEN and
 * the sum with the tag length is one word too. Added as words, not as a 64-bit sum (which costs
 * a carry chain over four words on MSP430). */
#define CLEN(mlen) ((aedsl_word_t)((aedsl_word_t)(mlen) + CRYPTO_ABYTES))

/* x fits one word and leaves room for the tag: every word above the first is tested, as words,
 * not by a 64-bit compare (which costs a few hundred bytes of MSP430 code). On MSP430 that is
 * three words: 2^32 + 5 is refused, not read as 5. */
static inline int too_long(unsigned long long x)
{
    aedsl_word_t high = (aedsl_word_t)(x >> (8 * sizeof(aedsl_word_t)));
    if (sizeof(aedsl_word_t) == 2)      /* folded away on a 32-bit target */
        high |= (aedsl_word_t)(x >> 32) | (aedsl_word_t)(x >> 48);
    return high != 0 || (aedsl_word_t)x > AEDSL_MAX_LEN;
}

/* m[0..n) &= mask for every byte, whatever the mask: the loop bounds depend only on the public
 * address and length. Whole words in the middle, so wiping costs ~1/2 (MSP430) or ~1/4 (ARM) of
 * a byte loop; may_alias because the buffer is declared as bytes. */
typedef aedsl_word_t __attribute__((may_alias)) aedsl_alias_word_t;

#ifndef AEDSL_OPT_SIZE
#define AEDSL_OPT_SIZE 0
#endif

#if AEDSL_OPT_SIZE
/* Size mode (`-k opt=size`, the glue defines AEDSL_OPT_SIZE): one byte loop, the same
 * data-independent bounds. */
static void mask_bytes(unsigned char *m, aedsl_word_t n, aedsl_word_t mask)
{
    for (; n != 0; n--)
        *m++ &= (unsigned char)mask;
}
#else
static void mask_bytes(unsigned char *m, aedsl_word_t n, aedsl_word_t mask)
{
    const aedsl_word_t W = sizeof(aedsl_word_t);
    unsigned char *end = m + n;
    unsigned char b = (unsigned char)mask;
    while (m != end && ((uintptr_t)m & (W - 1)) != 0)
        *m++ &= b;
    /* every successful decryption runs this over its whole output: four words per loop trip
     * (MSP430: `and rM, k(rP)` four times, then the pointer and count; ~6 cycles a word, was 14) */
    aedsl_alias_word_t *w = (aedsl_alias_word_t *)m;
    aedsl_word_t k = (aedsl_word_t)(end - m) / W;
    for (; k >= 4; k -= 4, w += 4) {
        w[0] &= mask;
        w[1] &= mask;
        w[2] &= mask;
        w[3] &= mask;
    }
    for (; k != 0; k--)
        *w++ &= mask;
    for (m = (unsigned char *)w; m != end; m++)
        *m &= b;
}
#endif

/* The verdict word -> 0 (tag good) or -1, and the output wiped unless good: no branch on `ok`. */
static int release(unsigned char *m, aedsl_word_t n, aedsl_word_t ok)
{
#if CRYPTO_ABYTES == 0
    /* no tag (CTR): nothing was authenticated, so no verdict to hide and no pass over the
     * output (it cost CTR decryption 3 cycles/byte on MSP430) */
    if ((ok & 1) != 0)
        return 0;
#endif
    ok = opaque(ok & 1);
    mask_bytes(m, n, opaque((aedsl_word_t)0 - ok));     /* all ones when the tag verified */
    return (int)ok - 1;
}

/* What a message is encrypted or decrypted from: the expanded key (a scheme with a key-setup
 * stage: the glue's *_with wrappers) or the key itself (the generated encrypt/decrypt expand it). */
#if AEDSL_HAS_KEY_SETUP
typedef const aedsl_state_t *aedsl_keyed_t;
#define aedsl_message_encrypt aedsl_gen_encrypt_with
#define aedsl_message_decrypt aedsl_gen_decrypt_with

/* The expanded key (round keys, GHASH tables) must not outlive the call on the stack: zero it
 * with word stores (volatile: dead stores to a dying object are otherwise removed, and the loop
 * is not turned into a memset call the bare-metal link has no library for). The state is
 * 4-byte aligned and a multiple of 4 bytes (aead_runtime.glue_header). */
static void wipe_state(aedsl_state_t *st)
{
    volatile aedsl_word_t *p = (volatile aedsl_word_t *)st;
    aedsl_word_t n = sizeof *st / sizeof(aedsl_word_t);
#if !AEDSL_OPT_SIZE
    /* four words per loop trip: the loop's pointer, count and branch are paid once per four
     * stores (GCM's 700-byte ARM state: ~1 000 cycles of wiping with one store per trip) */
    for (; n >= 4; n -= 4, p += 4) {
        p[0] = 0;
        p[1] = 0;
        p[2] = 0;
        p[3] = 0;
    }
#endif
    for (; n != 0; n--)
        *p++ = 0;
}

#else  /* no key-setup stage: the generated encrypt/decrypt expand the key themselves */
typedef const unsigned char *aedsl_keyed_t;
#define aedsl_message_encrypt aedsl_gen_encrypt
#define aedsl_message_decrypt aedsl_gen_decrypt
#endif

/* The per-message bodies, inlined where they are used: into the staged entry points
 * (aedsl_aead_encrypt_with / _decrypt_with) and into crypto_aead_encrypt / _decrypt, which then
 * call the generated code directly. `key`: the expanded key, or the key where the scheme has no
 * key-setup stage. A caller of the NIST API links crypto_aead_* and what they
 * call, not the staged entry points (aedsl/rom.py counts ROM that way), and no call layer
 * copies the arguments a second time. */
static inline __attribute__((always_inline))
int encrypt_body(aedsl_keyed_t key, unsigned char *c, unsigned long long *clen,
                 const unsigned char *m, unsigned long long mlen,
                 const unsigned char *ad, unsigned long long adlen, const unsigned char *npub)
{
    if (too_long(mlen) | too_long(adlen))
        return -2;
    aedsl_message_encrypt(key, npub, ad, (aedsl_word_t)adlen, m, (aedsl_word_t)mlen,
                          c, c + (aedsl_word_t)mlen);
    *clen = CLEN(mlen);
    return 0;
}

static inline __attribute__((always_inline))
int decrypt_body(aedsl_keyed_t key, unsigned char *m, unsigned long long *mlen,
                 const unsigned char *c, unsigned long long clen,
                 const unsigned char *ad, unsigned long long adlen, const unsigned char *npub)
{
    if (too_long(clen) | too_long(adlen) || (aedsl_word_t)clen < CRYPTO_ABYTES)
        return -2;
    aedsl_word_t n = (aedsl_word_t)clen - CRYPTO_ABYTES;
    aedsl_word_t ok = aedsl_message_decrypt(key, npub, ad, (aedsl_word_t)adlen, c, n, c + n, m);
    *mlen = n;
    return release(m, n, ok);
}

#if AEDSL_HAS_KEY_SETUP
void aedsl_aead_key_setup(aedsl_state_t *st, const unsigned char *k)
{
    aedsl_gen_key_setup(k, st);
}

int aedsl_aead_encrypt_with(const aedsl_state_t *st, unsigned char *c, unsigned long long *clen,
                            const unsigned char *m, unsigned long long mlen,
                            const unsigned char *ad, unsigned long long adlen,
                            const unsigned char *npub)
{
    return encrypt_body(st, c, clen, m, mlen, ad, adlen, npub);
}

int aedsl_aead_decrypt_with(const aedsl_state_t *st, unsigned char *m, unsigned long long *mlen,
                            const unsigned char *c, unsigned long long clen,
                            const unsigned char *ad, unsigned long long adlen,
                            const unsigned char *npub)
{
    return decrypt_body(st, m, mlen, c, clen, ad, adlen, npub);
}
#endif

int crypto_aead_encrypt(unsigned char *c, unsigned long long *clen,
                        const unsigned char *m, unsigned long long mlen,
                        const unsigned char *ad, unsigned long long adlen,
                        const unsigned char *nsec, const unsigned char *npub,
                        const unsigned char *k)
{
    (void)nsec;
#if AEDSL_HAS_KEY_SETUP
    aedsl_state_t st;
    aedsl_gen_key_setup(k, &st);
    int r = encrypt_body(&st, c, clen, m, mlen, ad, adlen, npub);
    wipe_state(&st);
    return r;
#else
    return encrypt_body(k, c, clen, m, mlen, ad, adlen, npub);
#endif
}

int crypto_aead_decrypt(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,
                        const unsigned char *c, unsigned long long clen,
                        const unsigned char *ad, unsigned long long adlen,
                        const unsigned char *npub, const unsigned char *k)
{
    (void)nsec;
#if AEDSL_HAS_KEY_SETUP
    aedsl_state_t st;
    aedsl_gen_key_setup(k, &st);
    int r = decrypt_body(&st, m, mlen, c, clen, ad, adlen, npub);
    wipe_state(&st);
    return r;
#else
    return decrypt_body(k, m, mlen, c, clen, ad, adlen, npub);
#endif
}
#endif
