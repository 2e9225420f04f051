/* ARMv6-M (Cortex-M0) instruction-set simulator core: decode, execute, cycle accounting.
 *
 * Semantics follow the ARMv6-M Architecture Reference Manual (ARM DDI 0419, "ARM ARM"); section
 * numbers below refer to it.  Cycle counts follow the Cortex-M0 TRM (ARM DDI 0432C) Table 3-1
 * "Cortex-M0 instruction summary"; the numbers themselves are NOT in this file: they come from
 * aedsl/timing/armv6m.py through armv6m_set_timing(), so the code generator and the simulator
 * read one table.  This file only says which table row (timing class) each instruction charges.
 *
 * Model (what is and is not simulated):
 * - Thread mode, privileged, no exceptions or interrupts: a fault (undefined instruction,
 *   unaligned or unmapped access, SVC, interworking to ARM state) stops the run with a message
 *   naming the PC instead of entering HardFault, because a wrong program must be reported, not
 *   silently handled by a vector table we do not model.
 * - Memory: up to MAX_REGIONS flat regions (flash read-only to the CPU, RAM read/write).
 * - Flash wait states W (from the chip file): the TRM's counts assume zero wait states.  We charge
 *   W extra cycles for every 32-bit word the core fetches from flash: an instruction fetch costs W
 *   when it needs a flash word other than the last one fetched (sequential code: once per two
 *   16-bit instructions; after any taken branch the target word is fetched anew), and every data
 *   access (LDR literal, LDR/LDM from flash) costs W per word.  Prefetch buffers (STM32 PRFTBS)
 *   are not modelled, so with W > 0 this is an upper bound.  With W = 0 (STM32F030 up to 24 MHz)
 *   the model is exactly Table 3-1.
 * - BKPT halts before executing (not counted as an instruction; PC stays at the BKPT).
 * - WFI/WFE: no event sources exist, so they only take their table cycles and continue.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the armv6m core reads guest little-endian memory with host loads; port the accessors"
#endif

#define MAX_REGIONS 8

/* Timing classes: one per distinct row kind of DDI0432C Table 3-1.  Each has a base cost and a
 * per-register cost (for the 1+N / 4+N rows).  The order is exported as TIMING_NAMES so the Python
 * side passes the numbers by name, never by a position that could drift. */
enum {
    T_DP,            /* MOVS/MOV/ADD/ADDS/ADCS/ADR/SUB/SUBS/SBCS/RSBS/CMP/CMN/logical/shift/rotate/extend/reverse: 1 */
    T_ALU_PC,        /* MOV PC,Rm and ADD PC,PC,Rm: 3 */
    T_MULS,          /* MULS: 1 or 32 (implementation option; from the chip file) */
    T_LDR,           /* LDR/LDRH/LDRB/LDRSH/LDRSB, all addressing forms: 2 */
    T_STR,           /* STR/STRH/STRB, all addressing forms: 2 */
    T_LDM,           /* LDM Rn!,{loregs}: 1+N */
    T_STM,           /* STM Rn!,{loregs}: 1+N */
    T_PUSH,          /* PUSH {loregs[,lr]}: 1+N */
    T_POP,           /* POP {loregs}: 1+N */
    T_POP_PC,        /* POP {loregs,pc}: 4+N */
    T_B,             /* B label: 3 */
    T_BCC_TAKEN,     /* B<cc> taken: 3 */
    T_BCC_NOT_TAKEN, /* B<cc> not taken: 1 */
    T_BL,            /* BL: 4 */
    T_BX,            /* BX Rm: 3 */
    T_BLX,           /* BLX Rm: 3 */
    T_MRS,           /* MRS: 4 */
    T_MSR,           /* MSR: 4 */
    T_ISB,           /* ISB: 4 */
    T_DMB,           /* DMB: 4 */
    T_DSB,           /* DSB: 4 */
    T_CPS,           /* CPSIE/CPSID: 1 */
    T_NOP,           /* NOP: 1 */
    T_YIELD,         /* YIELD: 1 */
    T_SEV,           /* SEV: 1 */
    T_WFE,           /* WFE: 2 */
    T_WFI,           /* WFI: 2 */
    T_COUNT
};
static const char TIMING_NAMES[] =
    "dp,alu_pc,muls,ldr,str,ldm,stm,push,pop,pop_pc,b,bcc_taken,bcc_not_taken,bl,bx,blx,"
    "mrs,msr,isb,dmb,dsb,cps,nop,yield,sev,wfe,wfi";

/* Mnemonics for the optional instruction-mix statistics. */
enum {
    M_LSLS, M_LSRS, M_ASRS, M_ADDS, M_SUBS, M_MOVS, M_CMP, M_ANDS, M_EORS, M_ADCS, M_SBCS, M_RORS,
    M_TST, M_RSBS, M_CMN, M_ORRS, M_MULS, M_BICS, M_MVNS, M_ADD, M_MOV, M_SUB, M_BX, M_BLX, M_LDR,
    M_LDRH, M_LDRB, M_LDRSH, M_LDRSB, M_STR, M_STRH, M_STRB, M_ADR, M_SXTH, M_SXTB, M_UXTH, M_UXTB,
    M_REV, M_REV16, M_REVSH, M_PUSH, M_POP, M_LDM, M_STM, M_CPSIE, M_CPSID, M_NOP, M_YIELD, M_WFE,
    M_WFI, M_SEV, M_B, M_BCC, M_BL, M_MSR, M_MRS, M_DSB, M_DMB, M_ISB, M_COUNT
};
static const char MNEMONIC_NAMES[] =
    "lsls,lsrs,asrs,adds,subs,movs,cmp,ands,eors,adcs,sbcs,rors,tst,rsbs,cmn,orrs,muls,bics,mvns,"
    "add,mov,sub,bx,blx,ldr,ldrh,ldrb,ldrsh,ldrsb,str,strh,strb,adr,sxth,sxtb,uxth,uxtb,rev,rev16,"
    "revsh,push,pop,ldm,stm,cpsie,cpsid,nop,yield,wfe,wfi,sev,b,bcc,bl,msr,mrs,dsb,dmb,isb";

enum { ST_STOP_PC = 0, ST_STEP_LIMIT = 1, ST_HALT = 2, ST_FAULT = 3 };

typedef struct {
    uint32_t lo, len;
    uint8_t *mem;
    int flash;
} Region;

typedef struct {
    uint32_t r[16];                 /* r13 = the active SP, r15 = address of the current instruction */
    uint32_t n, z, c, v;            /* APSR flags, each 0 or 1 */
    uint32_t sp_other;              /* the banked SP not selected by CONTROL.SPSEL */
    uint32_t primask, control;
    uint64_t cycles, instructions;

    Region reg[MAX_REGIONS];
    int nreg;
    int ws;                         /* flash wait states */
    int32_t tb[T_COUNT], tn[T_COUNT];   /* timing: base, per register */
    uint32_t fetch_word;            /* flash word address (addr>>2) the fetch unit last read */

    /* fetch cache: the region holding the last fetched PC */
    uint32_t fc_lo, fc_lim;
    uint8_t *fc_mem;
    int fc_flash;

    uint32_t sw_lo, sw_hi, sw_min;  /* stack watch; sw_min == sw_hi means nothing written */
    int stats_on;
    uint64_t mix[M_COUNT];
    uint64_t mem_reads, mem_writes;

    char msg[256];
} Sim;

#define NO_WORD 0xFFFFFFFFu

/* ---------------------------------------------------------------- setup and debugger access */

void *armv6m_new(void) {
    Sim *s = calloc(1, sizeof(Sim));
    if (!s) return NULL;
    for (int i = 0; i < T_COUNT; i++) { s->tb[i] = 1; s->tn[i] = 0; }
    s->fetch_word = NO_WORD;
    return s;
}

void armv6m_free(void *p) {
    Sim *s = p;
    if (!s) return;
    for (int i = 0; i < s->nreg; i++) free(s->reg[i].mem);
    free(s);
}

const char *armv6m_timing_names(void) { return TIMING_NAMES; }
const char *armv6m_mnemonic_names(void) { return MNEMONIC_NAMES; }
const char *armv6m_message(void *p) { return ((Sim *)p)->msg; }

/* Returns 0, or -1 (too many regions), -2 (overlap or wraps), -3 (out of memory). */
int armv6m_add_region(void *p, uint32_t origin, uint32_t length, int is_flash) {
    Sim *s = p;
    if (s->nreg >= MAX_REGIONS) return -1;
    if (length == 0 || (uint64_t)origin + length > 0x100000000ull) return -2;
    for (int i = 0; i < s->nreg; i++) {
        uint64_t a = s->reg[i].lo, b = a + s->reg[i].len;
        if ((uint64_t)origin < b && a < (uint64_t)origin + length) return -2;
    }
    uint8_t *m = calloc(length, 1);
    if (!m) return -3;
    s->reg[s->nreg++] = (Region){origin, length, m, is_flash};
    return 0;
}

/* n must be T_COUNT; returns 0 or -1. */
int armv6m_set_timing(void *p, const int32_t *base, const int32_t *per_reg, int n) {
    Sim *s = p;
    if (n != T_COUNT) return -1;
    memcpy(s->tb, base, sizeof s->tb);
    memcpy(s->tn, per_reg, sizeof s->tn);
    return 0;
}

void armv6m_set_flash_wait_states(void *p, int ws) { ((Sim *)p)->ws = ws; }

static inline Region *find(Sim *s, uint32_t a, uint32_t n) {
    for (int i = 0; i < s->nreg; i++) {
        Region *r = &s->reg[i];
        uint32_t off = a - r->lo;
        if (off < r->len && n <= r->len - off) return r;
    }
    return NULL;
}

/* Debugger access: no cycles, no statistics, may write flash.  0 or -1 (unmapped byte). */
static int dbg_copy(Sim *s, uint32_t addr, uint8_t *buf, uint32_t n, int write) {
    while (n) {
        Region *r = find(s, addr, 1);
        if (!r) return -1;
        uint32_t off = addr - r->lo, k = r->len - off;
        if (k > n) k = n;
        if (write) memcpy(r->mem + off, buf, k);
        else memcpy(buf, r->mem + off, k);
        addr += k; buf += k; n -= k;
    }
    return 0;
}
int armv6m_read(void *p, uint32_t addr, uint8_t *buf, uint32_t n) { return dbg_copy(p, addr, buf, n, 0); }
int armv6m_write(void *p, uint32_t addr, const uint8_t *buf, uint32_t n) {
    Sim *s = p;
    s->fc_lim = 0;   /* code may have changed under the fetch cache */
    return dbg_copy(s, addr, (uint8_t *)buf, n, 1);
}

static uint32_t mem_word_or_zero(Sim *s, uint32_t a) {
    uint8_t b[4] = {0, 0, 0, 0};
    if (dbg_copy(s, a, b, 4, 0)) return 0;
    return b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
}

/* Power-on state (DDI0419 B1.5.5 TakeReset): MSP from word 0 of the vector table, PC from the reset
 * vector (the boot alias maps address 0 to flash, so the table is read at the flash origin), LR
 * 0xFFFFFFFF as Cortex-M0 resets it, flags/PRIMASK/CONTROL zero.  Memory is kept. */
void armv6m_reset(void *p) {
    Sim *s = p;
    uint32_t vt = 0;
    for (int i = 0; i < s->nreg; i++) if (s->reg[i].flash) { vt = s->reg[i].lo; break; }
    memset(s->r, 0, sizeof s->r);
    s->r[13] = mem_word_or_zero(s, vt) & ~3u;
    s->r[14] = 0xFFFFFFFFu;
    s->r[15] = mem_word_or_zero(s, vt + 4) & ~1u;
    s->n = s->z = s->c = s->v = 0;
    s->sp_other = 0;
    s->primask = s->control = 0;
    s->cycles = s->instructions = 0;
    s->fetch_word = NO_WORD;
    s->fc_lim = 0;
    s->sw_min = s->sw_hi;
    memset(s->mix, 0, sizeof s->mix);
    s->mem_reads = s->mem_writes = 0;
    s->msg[0] = 0;
}

uint32_t armv6m_get_reg(void *p, int i) { return ((Sim *)p)->r[i & 15]; }
void armv6m_set_reg(void *p, int i, uint32_t v) {
    Sim *s = p;
    i &= 15;
    if (i == 15) { v &= ~1u; s->fetch_word = NO_WORD; }
    if (i == 13) v &= ~3u;   /* SP[1:0] are RAZ/WI on ARMv6-M (B1.4.1) */
    s->r[i] = v;
}
/* xPSR as MRS XPSR would show it, plus the T bit (24), which is always 1 here. */
uint32_t armv6m_get_xpsr(void *p) {
    Sim *s = p;
    return s->n << 31 | s->z << 30 | s->c << 29 | s->v << 28 | 1u << 24;
}
void armv6m_set_xpsr(void *p, uint32_t x) {
    Sim *s = p;
    s->n = x >> 31; s->z = (x >> 30) & 1; s->c = (x >> 29) & 1; s->v = (x >> 28) & 1;
}
/* Special registers by MRS SYSm number: 8 MSP, 9 PSP, 16 PRIMASK, 20 CONTROL. */
uint32_t armv6m_get_special(void *p, int sysm) {
    Sim *s = p;
    int spsel = (s->control >> 1) & 1;
    switch (sysm) {
    case 8: return spsel ? s->sp_other : s->r[13];
    case 9: return spsel ? s->r[13] : s->sp_other;
    case 16: return s->primask;
    case 20: return s->control;
    default: return 0;
    }
}

uint64_t armv6m_cycles(void *p) { return ((Sim *)p)->cycles; }
uint64_t armv6m_instructions(void *p) { return ((Sim *)p)->instructions; }
void armv6m_clear_counters(void *p) {
    Sim *s = p;
    s->cycles = s->instructions = 0;
    memset(s->mix, 0, sizeof s->mix);
    s->mem_reads = s->mem_writes = 0;
}

void armv6m_set_stack_watch(void *p, uint32_t lo, uint32_t hi) {
    Sim *s = p;
    s->sw_lo = lo; s->sw_hi = hi; s->sw_min = hi;
}
/* 1 and *out = lowest written address in [lo,hi), or 0 if nothing was written there. */
int armv6m_stack_low(void *p, uint32_t *out) {
    Sim *s = p;
    if (s->sw_min >= s->sw_hi) return 0;
    *out = s->sw_min;
    return 1;
}

void armv6m_enable_stats(void *p, int on) { ((Sim *)p)->stats_on = on; }
/* mix must hold M_COUNT entries; rw two (reads, writes). */
void armv6m_get_stats(void *p, uint64_t *mix, uint64_t *rw) {
    Sim *s = p;
    memcpy(mix, s->mix, sizeof s->mix);
    rw[0] = s->mem_reads; rw[1] = s->mem_writes;
}
int armv6m_mnemonic_count(void) { return M_COUNT; }
int armv6m_timing_count(void) { return T_COUNT; }

/* ---------------------------------------------------------------- execution */

static int fault(Sim *s, uint32_t pc, const char *fmt, ...) {
    int k = snprintf(s->msg, sizeof s->msg, "pc=0x%08x: ", pc);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->msg + k, sizeof s->msg - k, fmt, ap);
    va_end(ap);
    return ST_FAULT;
}

static const char *size_name(uint32_t n) { return n == 4 ? "word" : n == 2 ? "halfword" : "byte"; }

/* Data read of n (1, 2, 4) bytes.  Returns 0 or ST_FAULT.  Adds flash wait states to *cyc. */
static inline int load(Sim *s, uint32_t pc, uint32_t a, uint32_t n, uint32_t *out, int *cyc) {
    if (a & (n - 1))   /* ARMv6-M has no unaligned support (A3.2): UsageFault -> HardFault */
        return fault(s, pc, "unaligned %s read at 0x%08x", size_name(n), a), ST_FAULT;
    Region *r = find(s, a, n);
    if (!r) return fault(s, pc, "%s read at unmapped address 0x%08x", size_name(n), a), ST_FAULT;
    const uint8_t *m = r->mem + (a - r->lo);
    if (n == 4) { uint32_t v; memcpy(&v, m, 4); *out = v; }
    else if (n == 2) { uint16_t v; memcpy(&v, m, 2); *out = v; }
    else *out = *m;
    if (r->flash) *cyc += s->ws;
    if (s->stats_on) s->mem_reads++;
    return 0;
}

static inline int store(Sim *s, uint32_t pc, uint32_t a, uint32_t n, uint32_t v) {
    if (a & (n - 1))
        return fault(s, pc, "unaligned %s write at 0x%08x", size_name(n), a), ST_FAULT;
    Region *r = find(s, a, n);
    if (!r) return fault(s, pc, "%s write at unmapped address 0x%08x", size_name(n), a), ST_FAULT;
    if (r->flash) return fault(s, pc, "%s write to flash (read-only) at 0x%08x", size_name(n), a), ST_FAULT;
    uint8_t *m = r->mem + (a - r->lo);
    if (n == 4) memcpy(m, &v, 4);
    else if (n == 2) { uint16_t h = (uint16_t)v; memcpy(m, &h, 2); }
    else *m = (uint8_t)v;
    if (a >= s->sw_lo && a < s->sw_min) s->sw_min = a;   /* sw_min <= sw_hi, so a < sw_hi too */
    if (s->stats_on) s->mem_writes++;
    return 0;
}

/* AddWithCarry (A2.2.1): returns the sum, sets C and V. */
static inline uint32_t add_c(Sim *s, uint32_t x, uint32_t y, uint32_t cin) {
    uint64_t u = (uint64_t)x + y + cin;
    uint32_t r = (uint32_t)u;
    s->c = (uint32_t)(u >> 32);
    s->v = ((x ^ r) & (y ^ r)) >> 31;
    return r;
}

static inline int cond_passed(Sim *s, uint32_t cond) {   /* A6.3.1 ConditionPassed */
    int r;
    switch (cond >> 1) {
    case 0: r = s->z; break;
    case 1: r = s->c; break;
    case 2: r = s->n; break;
    case 3: r = s->v; break;
    case 4: r = s->c && !s->z; break;
    case 5: r = s->n == s->v; break;
    case 6: r = !s->z && s->n == s->v; break;
    default: r = 1; break;
    }
    return (cond & 1) ? !r : r;
}

static inline uint32_t popcount8(uint32_t x) { return (uint32_t)__builtin_popcount(x & 0xFF); }

#define NZ(x) do { uint32_t _x = (x); s->n = _x >> 31; s->z = _x == 0; } while (0)
#define FAULT(...) do { return fault(s, pc, __VA_ARGS__); } while (0)
#define LOAD(a, n, out) do { if (load(s, pc, (a), (n), (out), &cyc)) return ST_FAULT; } while (0)
#define STORE(a, n, v) do { if (store(s, pc, (a), (n), (v))) return ST_FAULT; } while (0)
#define RD(i) ((i) == 15 ? pc + 4 : R[i])   /* reading PC gives the instruction address + 4 */
#define UNDEF() FAULT("undefined instruction 0x%04x", op)
#define UNPREDICTABLE(why) FAULT("UNPREDICTABLE instruction 0x%04x (%s)", op, why)
#define BRANCH(t) do { npc = (t); s->fetch_word = NO_WORD; } while (0)
/* Each executed instruction charges exactly one timing class; += keeps data wait states added by LOAD. */
#define CYC(cls) (cyc += s->tb[cls])
#define CYCN(cls, nregs) (cyc += s->tb[cls] + s->tn[cls] * (int)(nregs))

/* Executes the instruction at R[15].  Returns -1 to continue, or a status. */
static inline int step(Sim *s) {
    uint32_t *R = s->r;
    uint32_t pc = R[15];
    uint16_t op;
    int cyc = 0;   /* table cycles (CYC) plus data-access wait states (LOAD) */
    int ws_fetch = 0;

    uint32_t off = pc - s->fc_lo;
    if (off >= s->fc_lim) {
        Region *r = find(s, pc, 2);
        if (!r) return fault(s, pc, "instruction fetch from unmapped address");
        s->fc_lo = r->lo; s->fc_mem = r->mem; s->fc_flash = r->flash;
        s->fc_lim = r->len - 1;   /* off < len-1 <=> a halfword at off fits */
        off = pc - r->lo;
    }
    memcpy(&op, s->fc_mem + off, 2);
    if (s->ws && s->fc_flash && (pc >> 2) != s->fetch_word) {
        ws_fetch = s->ws;
        s->fetch_word = pc >> 2;
    }

    uint32_t npc = pc + 2;
    int mn;
    uint32_t rd = op & 7, rn = (op >> 3) & 7;

    switch (op >> 11) {
    /* --- A5.2.1 shift (immediate), add, subtract, move, and compare --- */
    case 0x00: {   /* LSLS Rd,Rm,#imm5 (A6.7.35); imm5 = 0 is MOVS Rd,Rm (A6.7.40 T2): C unchanged */
        uint32_t x = R[rn], k = (op >> 6) & 31;
        if (k) { s->c = (x >> (32 - k)) & 1; x <<= k; mn = M_LSLS; } else mn = M_MOVS;
        R[rd] = x; NZ(x); CYC(T_DP);
        break;
    }
    case 0x01: {   /* LSRS Rd,Rm,#imm5 (A6.7.37); imm5 = 0 means 32 */
        uint32_t x = R[rn], k = (op >> 6) & 31;
        if (k) { s->c = (x >> (k - 1)) & 1; x >>= k; } else { s->c = x >> 31; x = 0; }
        R[rd] = x; NZ(x); mn = M_LSRS; CYC(T_DP);
        break;
    }
    case 0x02: {   /* ASRS Rd,Rm,#imm5 (A6.7.10); imm5 = 0 means 32 */
        uint32_t x = R[rn], k = (op >> 6) & 31;
        if (k) { s->c = (x >> (k - 1)) & 1; x = (uint32_t)((int32_t)x >> k); }
        else { s->c = x >> 31; x = (uint32_t)((int32_t)x >> 31); }
        R[rd] = x; NZ(x); mn = M_ASRS; CYC(T_DP);
        break;
    }
    case 0x03: {   /* ADDS/SUBS Rd,Rn,Rm and Rd,Rn,#imm3 (A6.7.2-4, A6.7.65-66) */
        uint32_t a = R[rn], m = (op >> 6) & 7;
        uint32_t b = (op & 0x400) ? m : R[m];
        uint32_t r = (op & 0x200) ? add_c(s, a, ~b, 1) : add_c(s, a, b, 0);
        mn = (op & 0x200) ? M_SUBS : M_ADDS;
        R[rd] = r; NZ(r); CYC(T_DP);
        break;
    }
    case 0x04: {   /* MOVS Rd,#imm8 (A6.7.39): C unchanged */
        uint32_t x = op & 0xFF;
        R[(op >> 8) & 7] = x; NZ(x); mn = M_MOVS; CYC(T_DP);
        break;
    }
    case 0x05: {   /* CMP Rn,#imm8 (A6.7.17) */
        uint32_t r = add_c(s, R[(op >> 8) & 7], ~(uint32_t)(op & 0xFF), 1);
        NZ(r); mn = M_CMP; CYC(T_DP);
        break;
    }
    case 0x06: {   /* ADDS Rdn,#imm8 (A6.7.2 T2) */
        uint32_t d = (op >> 8) & 7;
        uint32_t r = add_c(s, R[d], op & 0xFF, 0);
        R[d] = r; NZ(r); mn = M_ADDS; CYC(T_DP);
        break;
    }
    case 0x07: {   /* SUBS Rdn,#imm8 (A6.7.65 T2) */
        uint32_t d = (op >> 8) & 7;
        uint32_t r = add_c(s, R[d], ~(uint32_t)(op & 0xFF), 1);
        R[d] = r; NZ(r); mn = M_SUBS; CYC(T_DP);
        break;
    }
    case 0x08:
        if (!(op & 0x400)) {   /* --- A5.2.2 data processing: op Rdn, Rm --- */
            uint32_t a = R[rd], b = R[rn], r;
            int cls = T_DP;   /* Table 3-1: every row of this group is 1 cycle except MULS */
            switch ((op >> 6) & 15) {
            case 0x0: r = a & b; R[rd] = r; NZ(r); mn = M_ANDS; break;
            case 0x1: r = a ^ b; R[rd] = r; NZ(r); mn = M_EORS; break;
            case 0x2: {   /* LSLS Rdn,Rm (A6.7.36): shift by Rm[7:0] */
                uint32_t k = b & 0xFF;
                if (k == 0) r = a;
                else if (k < 32) { s->c = (a >> (32 - k)) & 1; r = a << k; }
                else if (k == 32) { s->c = a & 1; r = 0; }
                else { s->c = 0; r = 0; }
                R[rd] = r; NZ(r); mn = M_LSLS; break;
            }
            case 0x3: {   /* LSRS Rdn,Rm (A6.7.38) */
                uint32_t k = b & 0xFF;
                if (k == 0) r = a;
                else if (k < 32) { s->c = (a >> (k - 1)) & 1; r = a >> k; }
                else if (k == 32) { s->c = a >> 31; r = 0; }
                else { s->c = 0; r = 0; }
                R[rd] = r; NZ(r); mn = M_LSRS; break;
            }
            case 0x4: {   /* ASRS Rdn,Rm (A6.7.11) */
                uint32_t k = b & 0xFF;
                if (k == 0) r = a;
                else if (k < 32) { s->c = (a >> (k - 1)) & 1; r = (uint32_t)((int32_t)a >> k); }
                else { s->c = a >> 31; r = (uint32_t)((int32_t)a >> 31); }
                R[rd] = r; NZ(r); mn = M_ASRS; break;
            }
            case 0x5: r = add_c(s, a, b, s->c); R[rd] = r; NZ(r); mn = M_ADCS; break;
            case 0x6: r = add_c(s, a, ~b, s->c); R[rd] = r; NZ(r); mn = M_SBCS; break;
            case 0x7: {   /* RORS Rdn,Rm (A6.7.55): C = bit 31 of the result unless Rm[7:0] == 0 */
                uint32_t k = b & 0xFF;
                if (k == 0) r = a;
                else { uint32_t k5 = k & 31; r = k5 ? (a >> k5) | (a << (32 - k5)) : a; s->c = r >> 31; }
                R[rd] = r; NZ(r); mn = M_RORS; break;
            }
            case 0x8: r = a & b; NZ(r); mn = M_TST; break;
            case 0x9: r = add_c(s, ~b, 0, 1); R[rd] = r; NZ(r); mn = M_RSBS; break;   /* RSBS Rd,Rn,#0 */
            case 0xA: r = add_c(s, a, ~b, 1); NZ(r); mn = M_CMP; break;
            case 0xB: r = add_c(s, a, b, 0); NZ(r); mn = M_CMN; break;
            case 0xC: r = a | b; R[rd] = r; NZ(r); mn = M_ORRS; break;
            case 0xD:   /* MULS Rdm,Rn,Rdm (A6.7.41): C and V unchanged */
                r = a * b; R[rd] = r; NZ(r); mn = M_MULS; cls = T_MULS; break;
            case 0xE: r = a & ~b; R[rd] = r; NZ(r); mn = M_BICS; break;
            default: r = ~b; R[rd] = r; NZ(r); mn = M_MVNS; break;
            }
            CYC(cls);
        } else {   /* --- A5.2.3 special data instructions and branch and exchange --- */
            uint32_t m = (op >> 3) & 15, d = (op & 7) | ((op >> 4) & 8);
            switch ((op >> 8) & 3) {
            case 0: {   /* ADD Rdn,Rm (A6.7.3 T2; SP forms A6.7.6 are the same arithmetic); no flags */
                if (d == 15 && m == 15) UNPREDICTABLE("ADD PC,PC");
                uint32_t r = RD(d) + RD(m);
                mn = M_ADD;
                if (d == 15) { BRANCH(r & ~1u); CYC(T_ALU_PC); }   /* ALUWritePC, Table 3-1 "ADD PC,PC,Rm" */
                else { R[d] = d == 13 ? r & ~3u : r; CYC(T_DP); }
                break;
            }
            case 1: {   /* CMP Rn,Rm (A6.7.18 T2) */
                uint32_t r = add_c(s, RD(d), ~RD(m), 1);
                NZ(r); mn = M_CMP; CYC(T_DP);
                break;
            }
            case 2: {   /* MOV Rd,Rm (A6.7.40 T1); no flags */
                uint32_t r = RD(m);
                mn = M_MOV;
                if (d == 15) { BRANCH(r & ~1u); CYC(T_ALU_PC); }   /* Table 3-1 "MOV PC,Rm" */
                else { R[d] = d == 13 ? r & ~3u : r; CYC(T_DP); }
                break;
            }
            default: {   /* BX Rm / BLX Rm (A6.7.14, A6.7.15) */
                uint32_t t = RD(m);
                if (op & 0x80) {
                    if (m == 15) UNPREDICTABLE("BLX PC");
                    R[14] = (pc + 2) | 1;
                    mn = M_BLX; CYC(T_BLX);
                } else { mn = M_BX; CYC(T_BX); }
                if (!(t & 1))   /* EPSR.T = 0 -> INVSTATE UsageFault on the next instruction */
                    FAULT("%s to 0x%08x: bit 0 clear would leave Thumb state", (op & 0x80) ? "BLX" : "BX", t);
                BRANCH(t & ~1u);
                break;
            }
            }
        }
        break;
    case 0x09: {   /* LDR Rt,[PC,#imm8*4] (A6.7.27): base is Align(PC,4) */
        uint32_t v;
        CYC(T_LDR);
        LOAD(((pc + 4) & ~3u) + ((op & 0xFF) << 2), 4, &v);
        R[(op >> 8) & 7] = v; mn = M_LDR;
        break;
    }
    case 0x0A: case 0x0B: {   /* A5.2.4 load/store with register offset */
        uint32_t a = R[rn] + R[(op >> 6) & 7], v;
        switch ((op >> 9) & 7) {
        case 0: CYC(T_STR); STORE(a, 4, R[rd]); mn = M_STR; break;
        case 1: CYC(T_STR); STORE(a, 2, R[rd]); mn = M_STRH; break;
        case 2: CYC(T_STR); STORE(a, 1, R[rd]); mn = M_STRB; break;
        case 3: CYC(T_LDR); LOAD(a, 1, &v); R[rd] = (uint32_t)(int32_t)(int8_t)v; mn = M_LDRSB; break;
        case 4: CYC(T_LDR); LOAD(a, 4, &v); R[rd] = v; mn = M_LDR; break;
        case 5: CYC(T_LDR); LOAD(a, 2, &v); R[rd] = v; mn = M_LDRH; break;
        case 6: CYC(T_LDR); LOAD(a, 1, &v); R[rd] = v; mn = M_LDRB; break;
        default: CYC(T_LDR); LOAD(a, 2, &v); R[rd] = (uint32_t)(int32_t)(int16_t)v; mn = M_LDRSH; break;
        }
        break;
    }
    case 0x0C: CYC(T_STR); STORE(R[rn] + (((op >> 6) & 31) << 2), 4, R[rd]); mn = M_STR; break;
    case 0x0D: { uint32_t v; CYC(T_LDR); LOAD(R[rn] + (((op >> 6) & 31) << 2), 4, &v); R[rd] = v; mn = M_LDR; break; }
    case 0x0E: CYC(T_STR); STORE(R[rn] + ((op >> 6) & 31), 1, R[rd]); mn = M_STRB; break;
    case 0x0F: { uint32_t v; CYC(T_LDR); LOAD(R[rn] + ((op >> 6) & 31), 1, &v); R[rd] = v; mn = M_LDRB; break; }
    case 0x10: CYC(T_STR); STORE(R[rn] + (((op >> 6) & 31) << 1), 2, R[rd]); mn = M_STRH; break;
    case 0x11: { uint32_t v; CYC(T_LDR); LOAD(R[rn] + (((op >> 6) & 31) << 1), 2, &v); R[rd] = v; mn = M_LDRH; break; }
    case 0x12: CYC(T_STR); STORE(R[13] + ((op & 0xFF) << 2), 4, R[(op >> 8) & 7]); mn = M_STR; break;
    case 0x13: { uint32_t v; CYC(T_LDR); LOAD(R[13] + ((op & 0xFF) << 2), 4, &v); R[(op >> 8) & 7] = v; mn = M_LDR; break; }
    case 0x14:   /* ADR Rd,label (A6.7.7) */
        R[(op >> 8) & 7] = ((pc + 4) & ~3u) + ((op & 0xFF) << 2); mn = M_ADR; CYC(T_DP); break;
    case 0x15:   /* ADD Rd,SP,#imm8*4 (A6.7.5 T1) */
        R[(op >> 8) & 7] = R[13] + ((op & 0xFF) << 2); mn = M_ADD; CYC(T_DP); break;
    case 0x16: case 0x17:   /* --- A5.2.5 miscellaneous 16-bit instructions --- */
        switch ((op >> 8) & 15) {
        case 0x0:   /* ADD SP,SP,#imm7*4 / SUB SP,SP,#imm7*4 (A6.7.5 T2, A6.7.67) */
            if (op & 0x80) { R[13] -= (op & 0x7F) << 2; mn = M_SUB; }
            else { R[13] += (op & 0x7F) << 2; mn = M_ADD; }
            CYC(T_DP);
            break;
        case 0x2: {   /* SXTH SXTB UXTH UXTB (A6.7.71-72, A6.7.76-77) */
            uint32_t x = R[rn];
            switch ((op >> 6) & 3) {
            case 0: x = (uint32_t)(int32_t)(int16_t)x; mn = M_SXTH; break;
            case 1: x = (uint32_t)(int32_t)(int8_t)x; mn = M_SXTB; break;
            case 2: x &= 0xFFFF; mn = M_UXTH; break;
            default: x &= 0xFF; mn = M_UXTB; break;
            }
            R[rd] = x; CYC(T_DP);
            break;
        }
        case 0x4: case 0x5: {   /* PUSH {reglist[,LR]} (A6.7.50) */
            uint32_t list = (op & 0xFF) | ((op & 0x100) << 6), cnt = popcount8(op) + ((op >> 8) & 1);
            if (!cnt) UNPREDICTABLE("empty register list");
            uint32_t a = R[13] - 4 * cnt;
            /* check both ends first so a fault leaves memory untouched */
            if (a & 3) FAULT("unaligned PUSH at SP 0x%08x", R[13]);
            Region *r = find(s, a, 4 * cnt);
            if (!r) FAULT("PUSH to unmapped stack 0x%08x..0x%08x", a, R[13]);
            for (uint32_t i = 0, k = a; i < 16; i++)
                if (list >> i & 1) { STORE(k, 4, R[i]); k += 4; }
            R[13] = a; mn = M_PUSH; CYCN(T_PUSH, cnt);   /* Table 3-1 "PUSH": 1+N, N = registers in the list */
            break;
        }
        case 0x6:   /* CPS (B4.2.1): 1011 0110 011 im 0010 */
            if ((op & 0xEF) != 0x62) UNDEF();
            s->primask = (op >> 4) & 1;
            mn = (op & 0x10) ? M_CPSID : M_CPSIE; CYC(T_CPS);
            break;
        case 0xA: {   /* REV REV16 REVSH (A6.7.52-54) */
            uint32_t x = R[rn];
            switch ((op >> 6) & 3) {
            case 0: x = __builtin_bswap32(x); mn = M_REV; break;
            case 1: x = ((x & 0x00FF00FFu) << 8) | ((x >> 8) & 0x00FF00FFu); mn = M_REV16; break;
            case 3: x = (uint32_t)(int32_t)(int16_t)(((x & 0xFF) << 8) | ((x >> 8) & 0xFF)); mn = M_REVSH; break;
            default: UNDEF();
            }
            R[rd] = x; CYC(T_DP);
            break;
        }
        case 0xC: case 0xD: {   /* POP {reglist[,PC]} (A6.7.49) */
            uint32_t cnt = popcount8(op) + ((op >> 8) & 1), a = R[13], vals[9], k = 0;
            if (!cnt) UNPREDICTABLE("empty register list");
            for (uint32_t i = 0; i < 8; i++)
                if (op >> i & 1) LOAD(a + 4 * k++, 4, &vals[i]);
            if (op & 0x100) LOAD(a + 4 * k, 4, &vals[8]);
            for (uint32_t i = 0; i < 8; i++) if (op >> i & 1) R[i] = vals[i];
            R[13] = a + 4 * cnt;
            mn = M_POP;
            if (op & 0x100) {   /* LoadWritePC -> BXWritePC: bit 0 must be 1 to stay in Thumb state */
                if (!(vals[8] & 1)) FAULT("POP to PC 0x%08x: bit 0 clear would leave Thumb state", vals[8]);
                BRANCH(vals[8] & ~1u);
                /* Table 3-1 "POP {<loregs>,pc}": 4+N; N counts every register in the list
                 * including PC (so POP {pc} = 5, POP {r4,pc} = 6), the same N as the 1+N rows. */
                CYCN(T_POP_PC, cnt);
            } else CYCN(T_POP, cnt);   /* Table 3-1 "POP {<loregs>}": 1+N */
            break;
        }
        case 0xE:   /* BKPT #imm8 (A6.7.12): debug halt, the instruction does not complete */
            snprintf(s->msg, sizeof s->msg, "pc=0x%08x: BKPT #%u", pc, op & 0xFF);
            return ST_HALT;
        case 0xF:   /* hints (A5.2.5): IT does not exist in ARMv6-M */
            if (op & 0xF) UNDEF();
            switch ((op >> 4) & 15) {
            case 1: mn = M_YIELD; CYC(T_YIELD); break;
            case 2: mn = M_WFE; CYC(T_WFE); break;
            case 3: mn = M_WFI; CYC(T_WFI); break;
            case 4: mn = M_SEV; CYC(T_SEV); break;
            default: mn = M_NOP; CYC(T_NOP); break;   /* NOP and unallocated hints execute as NOP */
            }
            break;
        default:   /* CBZ/CBNZ/IT etc. are ARMv7-M only */
            UNDEF();
        }
        break;
    case 0x18: {   /* STM Rn!,{reglist} (A6.7.58) */
        uint32_t n = (op >> 8) & 7, list = op & 0xFF, cnt = popcount8(list), a = R[n];
        if (!cnt) UNPREDICTABLE("empty register list");
        if ((list >> n & 1) && (list & ((1u << n) - 1)))   /* base in list, not lowest: UNPREDICTABLE */
            FAULT("STM with base r%u in the list but not its lowest register is UNPREDICTABLE", n);
        if (a & 3) FAULT("unaligned STM at 0x%08x", a);
        if (!find(s, a, 4 * cnt)) FAULT("STM to unmapped memory 0x%08x..0x%08x", a, a + 4 * cnt);
        for (uint32_t i = 0, k = a; i < 8; i++)
            if (list >> i & 1) { STORE(k, 4, R[i]); k += 4; }
        R[n] = a + 4 * cnt; mn = M_STM; CYCN(T_STM, cnt);   /* Table 3-1 "STM": 1+N */
        break;
    }
    case 0x19: {   /* LDM Rn!,{reglist} / LDM Rn,{reglist} if Rn in list (A6.7.25) */
        uint32_t n = (op >> 8) & 7, list = op & 0xFF, cnt = popcount8(list), a = R[n], vals[8], k = 0;
        if (!cnt) UNPREDICTABLE("empty register list");
        for (uint32_t i = 0; i < 8; i++)
            if (list >> i & 1) LOAD(a + 4 * k++, 4, &vals[i]);
        for (uint32_t i = 0; i < 8; i++) if (list >> i & 1) R[i] = vals[i];
        if (!(list >> n & 1)) R[n] = a + 4 * cnt;
        mn = M_LDM; CYCN(T_LDM, cnt);   /* Table 3-1 "LDM": 1+N */
        break;
    }
    case 0x1A: case 0x1B: {   /* B<cc> (A6.7.10 T1); cond 1110 = UDF, 1111 = SVC */
        uint32_t cond = (op >> 8) & 15;
        if (cond == 14) FAULT("UDF #%u (permanently undefined)", op & 0xFF);
        if (cond == 15) FAULT("SVC #%u: exceptions are not modelled", op & 0xFF);
        mn = M_BCC;
        if (cond_passed(s, cond)) {
            BRANCH(pc + 4 + (uint32_t)((int32_t)(int8_t)(op & 0xFF) * 2));
            CYC(T_BCC_TAKEN);
        } else CYC(T_BCC_NOT_TAKEN);
        break;
    }
    case 0x1C:   /* B label (A6.7.10 T2) */
        BRANCH(pc + 4 + (uint32_t)(((int32_t)((uint32_t)op << 21)) >> 20));
        mn = M_B; CYC(T_B);
        break;
    case 0x1E: case 0x1F: {   /* --- A5.3 32-bit instructions: branch and miscellaneous control --- */
        uint16_t hw2;
        uint32_t a2 = pc + 2;
        if (a2 - s->fc_lo < s->fc_lim) memcpy(&hw2, s->fc_mem + (a2 - s->fc_lo), 2);
        else {
            Region *r = find(s, a2, 2);
            if (!r) FAULT("instruction fetch from unmapped address 0x%08x", a2);
            memcpy(&hw2, r->mem + (a2 - r->lo), 2);
        }
        if (s->ws && s->fc_flash && (a2 >> 2) != s->fetch_word) { ws_fetch += s->ws; s->fetch_word = a2 >> 2; }
        if ((op & 0xF800) != 0xF000 || !(hw2 & 0x8000))
            FAULT("undefined instruction 0x%04x 0x%04x", op, hw2);
        uint32_t op1 = (op >> 4) & 0x7F, op2 = (hw2 >> 12) & 7;
        npc = pc + 4;
        if ((op2 & 5) == 5) {   /* BL (A6.7.13) */
            uint32_t S = (op >> 10) & 1, j1 = (hw2 >> 13) & 1, j2 = (hw2 >> 11) & 1;
            uint32_t i1 = !(j1 ^ S), i2 = !(j2 ^ S);
            uint32_t imm = S << 24 | i1 << 23 | i2 << 22 | (op & 0x3FFu) << 12 | (hw2 & 0x7FFu) << 1;
            int32_t off32 = (int32_t)(imm << 7) >> 7;
            R[14] = (pc + 4) | 1;
            BRANCH(pc + 4 + (uint32_t)off32);
            mn = M_BL; CYC(T_BL);
        } else if ((op2 & 5) == 0 && (op1 & 0x7E) == 0x38) {   /* MSR (B4.2.3) */
            uint32_t sysm = hw2 & 0xFF, x = RD(op & 15u);
            int spsel = (s->control >> 1) & 1;
            if (sysm < 8 && sysm != 4) {
                if (!(sysm & 4)) { s->n = x >> 31; s->z = (x >> 30) & 1; s->c = (x >> 29) & 1; s->v = (x >> 28) & 1; }
                /* IPSR and EPSR are read-only: writes ignored */
            } else if (sysm == 8) { if (spsel) s->sp_other = x & ~3u; else R[13] = x & ~3u; }
            else if (sysm == 9) { if (spsel) R[13] = x & ~3u; else s->sp_other = x & ~3u; }
            else if (sysm == 16) s->primask = x & 1;
            else if (sysm == 20) {   /* Cortex-M0 implements only SPSEL (bit 1); Thread mode only */
                uint32_t nsel = (x >> 1) & 1;
                if (nsel != (uint32_t)spsel) { uint32_t t = R[13]; R[13] = s->sp_other; s->sp_other = t; }
                s->control = nsel << 1;
            } else FAULT("MSR to unsupported special register SYSm=%u", sysm);
            mn = M_MSR; CYC(T_MSR);
        } else if ((op2 & 5) == 0 && op1 == 0x3B) {   /* DSB DMB ISB (A6.7.21, A6.7.20, A6.7.24) */
            switch ((hw2 >> 4) & 15) {
            case 4: mn = M_DSB; CYC(T_DSB); break;
            case 5: mn = M_DMB; CYC(T_DMB); break;
            case 6: mn = M_ISB; CYC(T_ISB); break;
            default: FAULT("undefined instruction 0x%04x 0x%04x", op, hw2);
            }
        } else if ((op2 & 5) == 0 && (op1 & 0x7E) == 0x3E) {   /* MRS (B4.2.2) */
            uint32_t sysm = hw2 & 0xFF, d = (hw2 >> 8) & 15, x;
            if (sysm < 8 && sysm != 4) x = (sysm & 4) ? 0 : (s->n << 31 | s->z << 30 | s->c << 29 | s->v << 28);
            /* IPSR reads 0 (Thread mode); EPSR reads as zero through MRS */
            else if (sysm == 8 || sysm == 9 || sysm == 16 || sysm == 20) x = armv6m_get_special(s, (int)sysm);
            else FAULT("MRS from unsupported special register SYSm=%u", sysm);
            if (d == 13 || d == 15) FAULT("MRS to r%u is UNPREDICTABLE", d);
            R[d] = x; mn = M_MRS; CYC(T_MRS);
        } else
            FAULT("undefined instruction 0x%04x 0x%04x", op, hw2);   /* includes UDF.W */
        break;
    }
    default:   /* 0x1D: 11101 is a 32-bit prefix with no ARMv6-M encodings */
        UNDEF();
    }

    R[15] = npc;
    s->cycles += (uint64_t)(cyc + ws_fetch);
    s->instructions++;
    if (s->stats_on) s->mix[mn]++;
    return -1;
}

/* Runs until PC is in stops[] (checked before each instruction), max_steps instructions have
 * executed, BKPT, or a fault.  Returns ST_*; for ST_FAULT / ST_HALT armv6m_message() explains. */
int armv6m_run(void *p, uint64_t max_steps, const uint32_t *stops, int nstops) {
    Sim *s = p;
    s->msg[0] = 0;
    for (uint64_t k = 0; k < max_steps; k++) {
        uint32_t pc = s->r[15];
        for (int i = 0; i < nstops; i++)
            if (stops[i] == pc) return ST_STOP_PC;
        int st = step(s);
        if (st >= 0) return st;
    }
    for (int i = 0; i < nstops; i++)
        if (stops[i] == s->r[15]) return ST_STOP_PC;
    return ST_STEP_LIMIT;
}
