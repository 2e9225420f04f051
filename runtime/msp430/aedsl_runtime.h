/* The thin C runtime of aedsl: the NIST LWC / SUPERCOP AEAD API over generated functions.
 *
 * Built per compiled spec variant: AEDSL_GLUE names a header written by aedsl/aead_runtime.py
 * that includes the generated .h, defines CRYPTO_KEYBYTES / CRYPTO_NSECBYTES / CRYPTO_NPUBBYTES /
 * CRYPTO_ABYTES, AEDSL_HAS_KEY_SETUP, aedsl_word_t (the machine word of length and result
 * parameters) and static inline aedsl_gen_* wrappers that put the arguments in the generated
 * functions' order (docs/BACKENDS.md, "Calling convention of generated functions").
 *
 * The C is target-neutral (no MSP430 instruction, no library call): lengths are converted from the
 * API's 64-bit type to one machine word, so messages are limited to AEDSL_MAX_LEN bytes.
 */
#ifndef AEDSL_RUNTIME_H
#define AEDSL_RUNTIME_H
#include <stdint.h>

int crypto_aead_encrypt(unsigned char *c, unsigned long long *clen,
                        const unsigned char *m, unsigned long long mlen,
                        const unsigned char *ad, unsigned long long adlen,
                        const unsigned char *nsec, const unsigned char *npub,
                        const unsigned char *k);

/* Returns 0 when the tag verifies; otherwise -1 with m[0 .. clen-ABYTES) zeroed. -2: bad lengths. */
int crypto_aead_decrypt(unsigned char *m, unsigned long long *mlen, unsigned char *nsec,
                        const unsigned char *c, unsigned long long clen,
                        const unsigned char *ad, unsigned long long adlen,
                        const unsigned char *npub, const unsigned char *k);

#if AEDSL_HAS_KEY_SETUP
/* The key-setup stage (docs/LANGUAGE.md): expand a key once, then encrypt/decrypt many messages
 * under it. crypto_aead_* are these two steps with the state on the stack. */
void aedsl_aead_key_setup(aedsl_state_t *st, const unsigned char *k);
int aedsl_aead_encrypt_with(const aedsl_state_t *st, unsigned char *c, unsigned long long *clen,
                            const unsigned char *m, unsigned long long mlen,
                            const unsigned char *ad, unsigned long long adlen,
                            const unsigned char *npub);
int aedsl_aead_decrypt_with(const aedsl_state_t *st, unsigned char *m, unsigned long long *mlen,
                            const unsigned char *c, unsigned long long clen,
                            const unsigned char *ad, unsigned long long adlen,
                            const unsigned char *npub);
#endif

/* Benchmark entry points (bench.c): the API with one-word lengths, so the simulator harness can
 * call them with plain word arguments. Each is a call to the API and nothing else. */
int aedsl_bench_encrypt(unsigned char *c, const unsigned char *m, aedsl_word_t mlen,
                        const unsigned char *ad, aedsl_word_t adlen,
                        const unsigned char *npub, const unsigned char *k);
int aedsl_bench_decrypt(unsigned char *m, const unsigned char *c, aedsl_word_t clen,
                        const unsigned char *ad, aedsl_word_t adlen,
                        const unsigned char *npub, const unsigned char *k);
#if AEDSL_HAS_KEY_SETUP
void aedsl_bench_key_setup(aedsl_state_t *st, const unsigned char *k);
int aedsl_bench_encrypt_with(const aedsl_state_t *st, unsigned char *c, const unsigned char *m,
                             aedsl_word_t mlen, const unsigned char *ad, aedsl_word_t adlen,
                             const unsigned char *npub);
int aedsl_bench_decrypt_with(const aedsl_state_t *st, unsigned char *m, const unsigned char *c,
                             aedsl_word_t clen, const unsigned char *ad, aedsl_word_t adlen,
                             const unsigned char *npub);
#endif

#endif
