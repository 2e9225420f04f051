/* Test-only caller of the NIST LWC API (tests/e2e/runtime/test_long_lengths.py): a message
 * length of 2^(16 * which) + 5 bytes, which no buffer on these chips can have, must be refused
 * (-2) whichever of its words is non-zero, not read as its low 32 bits. */
#include AEDSL_GLUE
#include "aedsl_runtime.h"

/* 2^(16 * which) + 5, without a run-time 64-bit shift (no libgcc in the bare-metal link) */
static unsigned long long huge(aedsl_word_t which)
{
    return (which == 1 ? 0x10000ull : which == 2 ? 0x100000000ull : 0x1000000000000ull) + 5;
}

int aedsl_test_long_mlen(unsigned char *c, const unsigned char *m, const unsigned char *npub,
                         const unsigned char *k, aedsl_word_t which)
{
    unsigned long long clen = 0;
    unsigned long long mlen = huge(which);
    return crypto_aead_encrypt(c, &clen, m, mlen, m, 0, 0, npub, k);
}

int aedsl_test_long_adlen(unsigned char *c, const unsigned char *m, const unsigned char *npub,
                          const unsigned char *k, aedsl_word_t which)
{
    unsigned long long clen = 0;
    unsigned long long adlen = huge(which);
    return crypto_aead_encrypt(c, &clen, m, 5, m, adlen, 0, npub, k);
}
