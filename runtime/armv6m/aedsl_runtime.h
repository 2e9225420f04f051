/* The thin C runtime's API on ARMv6-M: the same declarations as on MSP430 (one API, both
 * targets; see runtime/msp430/aedsl_runtime.h). */
#include "../msp430/aedsl_runtime.h"
