/* Cortex-M0 start-up for the chips aedsl links for (STM32F030): the vector table and a reset
 * handler, so an ELF built with this runtime boots on the part itself, not only in the simulator.
 *
 * The linker script (aedsl/toolchain.py, linker_script) puts `.vectors` first in flash and defines
 * __stack_top, __data_start/__data_end/__data_load_start and __bss_start/__bss_end. The reset
 * handler copies .data, zeroes .bss and calls aedsl_main() -- a weak symbol an application
 * overrides; without one the core sleeps. (The simulator harness loads sections itself and calls
 * functions directly, so none of this runs there.)
 */
#include <stdint.h>

extern uint32_t __stack_top[], __data_start[], __data_end[], __data_load_start[], __bss_start[], __bss_end[];

void aedsl_main(void) __attribute__((weak));
void aedsl_main(void)
{
}

void aedsl_reset_handler(void)
{
    const uint32_t *src = __data_load_start;
    for (uint32_t *p = __data_start; p < __data_end; )
        *p++ = *src++;
    for (uint32_t *p = __bss_start; p < __bss_end; )
        *p++ = 0;
    aedsl_main();
    for (;;)
        __asm__ volatile("wfi");
}

/* Faults and unexpected interrupts stop here (a debugger shows where). */
void aedsl_default_handler(void)
{
    for (;;)
        ;
}

/* ARMv6-M vector table (ARM DDI 0419, B1.5.3): initial SP, Reset, NMI, HardFault, 7 reserved,
 * SVCall, 2 reserved, PendSV, SysTick. Device interrupts are not used by aedsl code. */
__attribute__((section(".vectors"), used))
void (*const aedsl_vectors[16])(void) = {
    (void (*)(void))__stack_top, aedsl_reset_handler, aedsl_default_handler, aedsl_default_handler,
    0, 0, 0, 0, 0, 0, 0, aedsl_default_handler, 0, 0, aedsl_default_handler, aedsl_default_handler,
};
