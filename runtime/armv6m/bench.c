/* ARMv6-M benchmark entry points: the API with one-word lengths, called by the simulator harness
 * (aedsl/bench.py). Target-neutral, shared with the MSP430 runtime (see aead.c for why). */
#include "../msp430/bench.c"
