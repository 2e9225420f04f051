/* Benchmark entry points: the AEAD API with one-word lengths (see aedsl_runtime.h), so the
 * simulator harness (aedsl/sim/harness.py) can pass plain words. aedsl/bench.py measures these;
 * the cycles include the API and this one extra call (a few dozen cycles, stated in
 * docs/BENCHMARKS.md). Compiles to nothing without AEDSL_GLUE, like aead.c. */
#ifdef AEDSL_GLUE
#include AEDSL_GLUE
#include "aedsl_runtime.h"

int aedsl_bench_encrypt(unsigned char *c, const unsigned char *m, aedsl_word_t mlen,
                        const unsigned char *ad, aedsl_word_t adlen,
                        const unsigned char *npub, const unsigned char *k)
{
    unsigned long long clen;
    return crypto_aead_encrypt(c, &clen, m, mlen, ad, adlen, 0, npub, k);
}

int aedsl_bench_decrypt(unsigned char *m, const unsigned char *c, aedsl_word_t clen,
                        const unsigned char *ad, aedsl_word_t adlen,
                        const unsigned char *npub, const unsigned char *k)
{
    unsigned long long mlen;
    return crypto_aead_decrypt(m, &mlen, 0, c, clen, ad, adlen, npub, k);
}

#if AEDSL_HAS_KEY_SETUP
void aedsl_bench_key_setup(aedsl_state_t *st, const unsigned char *k)
{
    aedsl_aead_key_setup(st, k);
}

int aedsl_bench_encrypt_with(const aedsl_state_t *st, unsigned char *c, const unsigned char *m,
                             aedsl_word_t mlen, const unsigned char *ad, aedsl_word_t adlen,
                             const unsigned char *npub)
{
    unsigned long long clen;
    return aedsl_aead_encrypt_with(st, c, &clen, m, mlen, ad, adlen, npub);
}

int aedsl_bench_decrypt_with(const aedsl_state_t *st, unsigned char *m, const unsigned char *c,
                             aedsl_word_t clen, const unsigned char *ad, aedsl_word_t adlen,
                             const unsigned char *npub)
{
    unsigned long long mlen;
    return aedsl_aead_decrypt_with(st, m, &mlen, c, clen, ad, adlen, npub);
}
#endif
#endif
