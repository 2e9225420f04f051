/* A tiny C function for the toolchain test: compiled by clang (MSP430) and arm-none-eabi-gcc.
   No multiply or variable shift: clang would call libgcc helpers that a -nostdlib link lacks. */
#include <stdint.h>

static const uint8_t weights[4] = {1, 2, 3, 4};
uint16_t bias = 5;   /* initialised data: the loader must copy it to RAM */

uint16_t mix(const uint8_t *p, uint16_t n)
{
    uint16_t s = bias;
    for (uint16_t i = 0; i < n; i++)
        s = (uint16_t)((s << 1) + (p[i] ^ weights[i & 3]));
    return s;
}
