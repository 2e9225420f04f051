/* ARMv6-M (Cortex-M0): crypto_aead_encrypt / crypto_aead_decrypt over the generated functions.
 *
 * The AEAD API is target-neutral C (runtime/msp430/aead.c: lengths narrowed to one machine word,
 * tag verdict applied without a branch, output zeroed when the tag fails), so this target compiles
 * that same file rather than a copy: aedsl_word_t is uint32_t here (the glue header written by
 * aedsl/aead_runtime.py says so), so messages up to 4 GB - 64 bytes are accepted.
 * Built with arm-none-eabi-gcc -mcpu=cortex-m0 -mthumb -Os (aedsl/toolchain.py).
 */
#include "../msp430/aead.c"
