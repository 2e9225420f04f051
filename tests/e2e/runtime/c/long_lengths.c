/* Test-only callers of the NIST LWC API (tests/e2e/runtime/test_long_lengths.py): a message
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

/* The lengths crypto_aead_encrypt and _decrypt write back, all 64 bits of each (preset to all
 * ones), for a message of mlen bytes with 3 bytes of AD: 0 when both are right and the message
 * verified; 1 a wrong *clen, 2 a refused decryption, 3 a wrong *mlen. */
int aedsl_test_out_lengths(unsigned char *c, unsigned char *m2, const unsigned char *m,
                           aedsl_word_t mlen, const unsigned char *npub, const unsigned char *k)
{
    unsigned long long clen = ~0ull, mlen2 = ~0ull;
    if (crypto_aead_encrypt(c, &clen, m, mlen, m, 3, 0, npub, k) != 0
            || clen != (unsigned long long)mlen + CRYPTO_ABYTES)
        return 1;
    if (crypto_aead_decrypt(m2, &mlen2, 0, c, clen, m, 3, npub, k) != 0)
        return 2;
    return mlen2 == mlen ? 0 : 3;
}
