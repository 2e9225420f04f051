/* MSP430 / MSP430X cycle-accurate instruction-set simulator core.
 *
 * Decode, execute, cycle accounting and the chip's peripherals (MPY16/MPY32, AES128/AES256, WDTCTL) all
 * live here; aedsl/sim/msp430.py is a thin ctypes wrapper.  The cycle numbers themselves are NOT in
 * this file: they live once, as data, in aedsl/timing/msp430.py (each entry citing its manual
 * table) and are handed to msp_new() as a flat int array laid out exactly like `timing_t` below.
 * This file holds the *rules* that index those tables; every rule cites its table.
 *
 * Table legend (titles of TI SLAU208 §4.5 "CPUX instructions cycles and lengths" and
 * TI SLAU144 §3.4.4 "Instruction Cycles and Lengths"; see also /work/shared/facts/TARGETS.md):
 *   [208-FI]   SLAU208 "MSP430 Format I Instructions Cycles and Length"
 *   [208-FII]  SLAU208 "MSP430 Format II Instruction Cycles and Length"
 *   [208-J]    SLAU208 "Jump instructions" (all jumps: 2 cycles, taken or not)
 *   [208-IRQ]  SLAU208 "Interrupt, Return, and Reset Cycles and Length"
 *   [208-XFI]  SLAU208 "MSP430X Format I Instruction Cycles and Length"
 *   [208-XFII] SLAU208 "MSP430X Format II Instruction Cycles and Length"
 *   [208-ADDR] SLAU208 "Address Instruction Cycles and Length" (MOVA/CMPA/ADDA/SUBA)
 *   [144-FI] [144-FII] [144-IRQ]  the SLAU144/SLAU049 tables of the original MSP430 CPU.
 *
 * TIMING OF DATA ACCESSES (the contract the code generator relies on):
 *   Every data memory access an instruction makes (reads and writes, peripheral registers included)
 *   is considered to happen at the END of that instruction, i.e. at cycle
 *       t_access = cycles_before_instruction + cycles_of_instruction.
 *   A peripheral operation started by a write (AES: the 16th AESADIN byte or, for OP=10, the 16th
 *   AESAKEY byte; MPY: the operand-2 write) completes at t_access(start) + latency.  A later read at
 *   t_read sees the result iff t_read >= t_access(start) + latency.  So the result of an operation
 *   is available to an instruction R iff the cycles of all instructions after the starting one, up
 *   to and including R, sum to at least the latency.
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>

/* ---------------------------------------------------------------- timing tables (data) ---- */
enum { M_RN, M_IDX, M_SYM, M_ABS, M_IND, M_INC, M_IMM, M_CG, NSRCMODES };  /* M_CG: stats only */
enum { D_REG, D_PC, D_IDX, D_SYM, D_ABS };
enum { F2_SHIFT, F2_PUSH, F2_CALL };         /* RRA/RRC/SWPB/SXT | PUSH | CALL */
enum { MV_REG, MV_PC, MV_MEM };

/* Field order and shapes must match msp430_timing.LAYOUT (checked at init via the length). */
typedef struct {
    int32_t fmt1[7][5];          /* [src mode][dst class]                      [208-FI]/[144-FI] */
    int32_t fmt1_mbc_mem;        /* MOV/BIT/CMP to a memory dst: minus this    [208-FI] note     */
    int32_t fmt2[3][7];          /* [class][mode], -1 = not encodable          [208-FII]/[144-FII]*/
    int32_t jump;                /*                                            [208-J]           */
    int32_t reti;                /*                                            [208-IRQ]         */
    int32_t fmt1x[2][7][5];      /* [.B/.W, .A][src mode][dst class]           [208-XFI]         */
    int32_t fmt1x_mbc_mem[2];    /* MOV/BIT/CMP to memory: minus this (.B/.W, .A) [208-XFI]      */
    int32_t fmt1x_pc_mas;        /* MOV/ADD/SUB to PC from #N or memory: minus [208-XFI]         */
    int32_t fmt2x[2][2][7];      /* [RRxX/SWPBX/SXTX, PUSHX][.B/.W, .A][mode]  [208-XFII]        */
    int32_t rpt_base;            /* repeated register instruction: n + this    [208-XFI]/[208-XFII] */
    int32_t rxxm_per_shift;      /* RRAM/RRCM/RRUM/RLAM #n: n * this           [208-XFII]        */
    int32_t pushm_base, pushm_per[2];   /* PUSHM.W 2+n, .A 2+2n                [208-XFII]        */
    int32_t popm_base, popm_per[2];     /* POPM.W 2+n, .A 2+2n                 [208-XFII]        */
    int32_t calla[7];            /* [mode]                                     [208-XFII]        */
    int32_t calla_idx_sp_extra;  /* CALLA x(SP): +this                         [208-XFII]        */
    int32_t mova[7][3];          /* [src mode][Rm, PC, memory dst]             [208-ADDR]        */
    int32_t adda[2][2];          /* CMPA/ADDA/SUBA [Rn, #N][Rm, PC]            [208-ADDR]        */
} timing_t;

int msp_timing_words(void) { return (int)(sizeof(timing_t) / sizeof(int32_t)); }

/* ---------------------------------------------------------------- simulator state ---------- */
enum { K_NONE, K_RAM, K_FLASH, K_MPY, K_AES, K_WDT };
enum { ST_STOP_PC = 0, ST_STEP_LIMIT = 1, ST_FAULT = 2, ST_HALT = 3 };

/* instruction-mix statistics ids */
static const char *const OPNAMES[] = {
    /* 0..11: Format I by opcode-4 */
    "MOV","ADD","ADDC","SUBC","SUB","CMP","DADD","BIT","BIC","BIS","XOR","AND",
    /* 12..23: X forms */
    "MOVX","ADDX","ADDCX","SUBCX","SUBX","CMPX","DADDX","BITX","BICX","BISX","XORX","ANDX",
    /* 24.. Format II */
    "RRC","SWPB","RRA","SXT","PUSH","CALL","RETI",
    "RRCX","SWPBX","RRAX","SXTX","PUSHX","RRUX",
    "JNE","JEQ","JNC","JC","JN","JGE","JL","JMP",
    "MOVA","CMPA","ADDA","SUBA","CALLA","PUSHM","POPM","RRCM","RRAM","RLAM","RRUM",
};
enum { OP_F1 = 0, OP_F1X = 12, OP_F2 = 24, OP_RETI = 30, OP_F2X = 31, OP_RRUX = 36, OP_J = 37,
       OP_MOVA = 45, OP_CMPA, OP_ADDA, OP_SUBA, OP_CALLA, OP_PUSHM, OP_POPM, OP_RXXM, NOPS = OP_RXXM + 4 };
static const char *const MODENAMES[NSRCMODES] = {"Rn","x(Rn)","EDE","&EDE","@Rn","@Rn+","#N","#CG"};

typedef struct {
    uint8_t mem[1 << 20];
    uint8_t kind[1 << 20];
    uint32_t r[16];
    uint64_t cycles, insns;
    uint64_t now;                  /* t_access of the instruction being executed */
    uint32_t ipc;                  /* address of the instruction being executed */
    int isax;
    uint32_t amask;
    timing_t t;
    jmp_buf jb;
    char msg[512];
    /* stack watch */
    uint32_t sw_lo, sw_span, sw_low;
    /* statistics */
    int stats_on;
    uint64_t opcount[NOPS];
    uint64_t srcmode[NSRCMODES], dstmode[5];
    uint64_t mem_r, mem_w;
    /* MPY16 / MPY32 */
    int mpy_kind;                  /* 0 none, 1 mpy16, 2 mpy32 */
    uint32_t mpy_base;
    uint32_t op1;                  /* 32-bit operand 1 */
    int op1_32, mode;              /* mode: 0 MPY 1 MPYS 2 MAC 3 MACS */
    uint16_t op2l, op2h, op1reg[16];
    int op2_32, op2_pending;
    uint64_t res;                  /* RES3:RES0 */
    uint16_t sumext, mpyctl;
    uint64_t ready[4], t_op2l;
    /* AES128 / AES256 module */
    int aes_on;
    uint32_t aes_base;
    int aes_klmask;                /* key lengths the module has: bit 0 AES-128, 1 AES-192, 2 AES-256 */
    int aes_xor_in;                /* AESAXDIN (0xC) and AESAXIN (0xE) exist (the AES256 module) */
    uint32_t lat[3][4];            /* [key length 128/192/256][OP: encrypt, decrypt, keygen, decgen] */
    uint16_t aes_ctl;
    uint8_t key[32], din[16], dout[16];
    int keycnt, dincnt, doutcnt, key_valid, dout_valid, dout_allread, keygen_pending;
    uint64_t aes_done;
    uint32_t wdt_addr;
} sim_t;

static void fault(sim_t *s, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
static void fault(sim_t *s, const char *fmt, ...) {
    char buf[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    snprintf(s->msg, sizeof s->msg, "pc=0x%05X: %s (cycle %llu)", s->ipc, buf,
             (unsigned long long)s->cycles);
    longjmp(s->jb, 1);
}

/* ---------------------------------------------------------------- AES-128 (FIPS-197) ------- */
static uint8_t SBOX[256], INV_SBOX[256];
static uint8_t gmul(uint8_t a, uint8_t b) {
    uint8_t p = 0;
    while (b) { if (b & 1) p ^= a; a = (uint8_t)((a << 1) ^ ((a & 0x80) ? 0x1B : 0)); b >>= 1; }
    return p;
}
static void aes_tables(void) {
    if (SBOX[0] == 0x63) return;
    for (int x = 0; x < 256; x++) {
        uint8_t inv = 0;                                   /* multiplicative inverse in GF(2^8) */
        if (x) for (int y = 1; y < 256; y++) if (gmul((uint8_t)x, (uint8_t)y) == 1) { inv = (uint8_t)y; break; }
        uint8_t b = inv, r = 0x63;                         /* FIPS-197 5.1.1 affine transform */
        for (int i = 0; i < 5; i++) { r ^= b; b = (uint8_t)((b << 1) | (b >> 7)); }
        SBOX[x] = r;
        INV_SBOX[r] = (uint8_t)x;
    }
}
/* FIPS-197 5.2 KeyExpansion for Nk = 4, 6, 8 words: 4 * (Nk + 7) words into w (at most 240 bytes). */
static void key_word_f(uint8_t t[4], int i, int nk) {
    static const uint8_t RC[15] = {0, 1, 2, 4, 8, 16, 32, 64, 128, 0x1B, 0x36, 0x6C, 0xD8, 0xAB, 0x4D};
    if (i % nk == 0) {
        uint8_t u = t[0];
        t[0] = SBOX[t[1]] ^ RC[i / nk]; t[1] = SBOX[t[2]]; t[2] = SBOX[t[3]]; t[3] = SBOX[u];
    } else if (nk > 6 && i % nk == 4) {
        for (int j = 0; j < 4; j++) t[j] = SBOX[t[j]];
    }
}
static void key_expand(const uint8_t *key, int nk, uint8_t w[240]) {
    int total = 4 * (nk + 7);
    memcpy(w, key, 4 * nk);
    for (int i = nk; i < total; i++) {
        uint8_t t[4];
        memcpy(t, w + 4 * (i - 1), 4);
        key_word_f(t, i, nk);
        for (int j = 0; j < 4; j++) w[4 * i + j] = w[4 * (i - nk) + j] ^ t[j];
    }
}
/* Run the key schedule backwards from its last Nk words (what the module holds after OP=10, and
 * what OP=11 starts from): w[i-Nk] = w[i] ^ f(w[i-1]). */
static void key_expand_from_last(const uint8_t *last, int nk, uint8_t w[240]) {
    int total = 4 * (nk + 7);
    memcpy(w + 4 * (total - nk), last, 4 * nk);
    for (int i = total - 1; i >= nk; i--) {
        uint8_t t[4];
        memcpy(t, w + 4 * (i - 1), 4);
        key_word_f(t, i, nk);
        for (int j = 0; j < 4; j++) w[4 * (i - nk) + j] = w[4 * i + j] ^ t[j];
    }
}
static void aes_encrypt(const uint8_t *w, int nr, const uint8_t in[16], uint8_t out[16]) {
    uint8_t st[16];
    for (int i = 0; i < 16; i++) st[i] = in[i] ^ w[i];
    for (int rnd = 1; rnd <= nr; rnd++) {
        uint8_t t[16];
        for (int c = 0; c < 4; c++) for (int r = 0; r < 4; r++)      /* SubBytes + ShiftRows */
            t[4 * c + r] = SBOX[st[4 * ((c + r) % 4) + r]];
        if (rnd != nr)
            for (int c = 0; c < 4; c++) {                              /* MixColumns */
                uint8_t *a = t + 4 * c, b0 = a[0], b1 = a[1], b2 = a[2], b3 = a[3];
                a[0] = gmul(b0, 2) ^ gmul(b1, 3) ^ b2 ^ b3;
                a[1] = b0 ^ gmul(b1, 2) ^ gmul(b2, 3) ^ b3;
                a[2] = b0 ^ b1 ^ gmul(b2, 2) ^ gmul(b3, 3);
                a[3] = gmul(b0, 3) ^ b1 ^ b2 ^ gmul(b3, 2);
            }
        for (int i = 0; i < 16; i++) st[i] = t[i] ^ w[16 * rnd + i];
    }
    memcpy(out, st, 16);
}
static void aes_decrypt(const uint8_t *w, int nr, const uint8_t in[16], uint8_t out[16]) {
    uint8_t st[16];
    for (int i = 0; i < 16; i++) st[i] = in[i] ^ w[16 * nr + i];
    for (int rnd = nr - 1; rnd >= 0; rnd--) {
        uint8_t t[16];
        for (int c = 0; c < 4; c++) for (int r = 0; r < 4; r++)      /* InvShiftRows + InvSubBytes */
            t[4 * ((c + r) % 4) + r] = INV_SBOX[st[4 * c + r]];
        for (int i = 0; i < 16; i++) t[i] ^= w[16 * rnd + i];          /* AddRoundKey */
        if (rnd != 0)
            for (int c = 0; c < 4; c++) {                              /* InvMixColumns */
                uint8_t *a = t + 4 * c, b0 = a[0], b1 = a[1], b2 = a[2], b3 = a[3];
                a[0] = gmul(b0, 14) ^ gmul(b1, 11) ^ gmul(b2, 13) ^ gmul(b3, 9);
                a[1] = gmul(b0, 9) ^ gmul(b1, 14) ^ gmul(b2, 11) ^ gmul(b3, 13);
                a[2] = gmul(b0, 13) ^ gmul(b1, 9) ^ gmul(b2, 14) ^ gmul(b3, 11);
                a[3] = gmul(b0, 11) ^ gmul(b1, 13) ^ gmul(b2, 9) ^ gmul(b3, 14);
            }
        memcpy(st, t, 16);
    }
    memcpy(out, st, 16);
}

/* ---------------------------------------------------------------- AES128 / AES256 accelerator */
/* Register map per TARGETS.md (SLAU259 AES128 chapter). AESASTAT byte counters are *unconfirmed*
 * (KEYCNT 7:4, DINCNT 11:8, DOUTCNT 15:12); the flag bits BUSY/KEYWR/DINWR/DOUTRD are confirmed.
 * The AES256 module (SLAU367 "AES256 Accelerator") adds the key length AESACTL0.AESKLx (bits 3:2:
 * 00 AES-128, 01 AES-192, 10 AES-256; changing it resets the key memory) and AESAXDIN (offset
 * 0xC: the bytes written are XORed into the state, the previous operation's output, and the 16th
 * starts the operation as AESADIN's does). AESAXIN (0xE, XOR without a start) is not modelled:
 * a write to it faults.
 * The result is computed when the operation starts and released at aes_done (see the timing
 * contract at the top); every access that real hardware would answer wrongly while BUSY is a fault. */
#define AES_BUSY 0x1
#define AES_KEYWR 0x2
#define AES_DINWR 0x4
#define AES_DOUTRD 0x8
#define AES_SWRST 0x80
#define AES_RDYIFG 0x100

static void aes_reset(sim_t *s) {
    s->aes_ctl = 0;
    s->keycnt = s->dincnt = s->doutcnt = 0;
    s->key_valid = s->dout_valid = s->dout_allread = s->keygen_pending = 0;
    s->aes_done = 0;
    memset(s->key, 0, 32); memset(s->din, 0, 16); memset(s->dout, 0, 16);
}
static int aes_kl(sim_t *s) { return (s->aes_ctl >> 2) & 3; }          /* 0, 1, 2: AES-128/192/256 */
static int aes_nk(sim_t *s) { return 4 + 2 * aes_kl(s); }               /* key words */
static int aes_busy(sim_t *s) { return s->now < s->aes_done; }
static uint16_t aes_stat(sim_t *s) {
    uint16_t v = 0;
    if (aes_busy(s)) v |= AES_BUSY;
    if (s->key_valid) v |= AES_KEYWR;
    if (s->dout_valid && s->dincnt == 0) v |= AES_DINWR;
    if (s->dout_allread) v |= AES_DOUTRD;
    v |= (uint16_t)((s->keycnt & 15) << 4 | (s->dincnt & 15) << 8 | (s->doutcnt & 15) << 12);
    return v;
}
static const char *const AES_OPS[4] = {"encrypt", "decrypt", "generate decryption key", "decrypt with generated key"};
static void aes_check_idle(sim_t *s, const char *what) {
    if (aes_busy(s))
        fault(s, "AES accelerator: %s while BUSY (the %s operation finishes at cycle %llu; "
                 "this access at cycle %llu is %llu cycles early)", what, AES_OPS[s->aes_ctl & 3],
              (unsigned long long)s->aes_done,
              (unsigned long long)s->now, (unsigned long long)(s->aes_done - s->now));
}
static void aes_write_byte(sim_t *s, uint32_t off, uint8_t b) {
    uint8_t w[240];
    int kl = aes_kl(s), nk = aes_nk(s), nr = nk + 6, kb = 4 * nk;
    switch (off) {
    case 6:  /* AESAKEY */
        aes_check_idle(s, "write to AESAKEY");
        if (s->keycnt == kb || s->key_valid) { s->keycnt = 0; s->key_valid = 0; }
        s->key[s->keycnt++] = b;
        if (s->keycnt == kb) {
            s->key_valid = 1;
            s->keycnt = 0;
            if ((s->aes_ctl & 3) == 2) {   /* OP=10: the schedule's last Nk words replace the cipher key */
                key_expand(s->key, nk, w);
                memcpy(s->key, w + 4 * (4 * (nk + 7) - nk), kb);
                s->aes_done = s->now + s->lat[kl][2];
            }
        }
        return;
    case 8: case 0xC: { /* AESADIN; AESAXDIN: the byte XORed into the state (the last output) */
        aes_check_idle(s, off == 8 ? "write to AESADIN" : "write to AESAXDIN");
        if (off == 0xC && !s->aes_xor_in)
            fault(s, "AES accelerator: write to AESAXDIN, which this module (AES128) does not have");
        if (!s->key_valid) fault(s, "AES accelerator: %s written before all %d AESAKEY bytes",
                                 off == 8 ? "AESADIN" : "AESAXDIN", kb);
        if (off == 0xC && !s->dout_valid)
            fault(s, "AES accelerator: AESAXDIN written before any operation produced a state to XOR into");
        s->din[s->dincnt] = off == 8 ? b : (uint8_t)(b ^ s->dout[s->dincnt]);
        s->dincnt++;
        s->dout_allread = 0;
        if (s->dincnt < 16) return;
        s->dincnt = 0;
        uint32_t lat;
        switch (s->aes_ctl & 3) {
        case 0: key_expand(s->key, nk, w); aes_encrypt(w, nr, s->din, s->dout); lat = s->lat[kl][0]; break;
        case 1: key_expand(s->key, nk, w); aes_decrypt(w, nr, s->din, s->dout); lat = s->lat[kl][1]; break;
        case 3: key_expand_from_last(s->key, nk, w); aes_decrypt(w, nr, s->din, s->dout); lat = s->lat[kl][3]; break;
        default: fault(s, "AES accelerator: AESADIN written with AESACTL0.OP=10 (key generation takes no data)");
        }
        s->dout_valid = 1; s->doutcnt = 0;
        s->aes_done = s->now + lat;
        return; }
    case 0xE:
        fault(s, "AES accelerator: write to AESAXIN (XOR without start) is not modelled");
    default:
        fault(s, "AES accelerator: write to read-only or reserved register at offset 0x%X", off);
    }
}
static uint8_t aes_read_byte(sim_t *s, uint32_t off) {
    if (off != 0xA) fault(s, "AES accelerator: read of write-only or reserved register at offset 0x%X", off);
    aes_check_idle(s, "read of AESADOUT");
    if (!s->dout_valid) fault(s, "AES accelerator: AESADOUT read before any operation produced output");
    uint8_t b = s->dout[s->doutcnt];
    s->doutcnt = (s->doutcnt + 1) & 15;
    if (s->doutcnt == 0) s->dout_allread = 1;
    return b;
}
static uint32_t aes_read(sim_t *s, uint32_t off, int byte) {
    if (off == 0 || off == 1) {           /* AESACTL0 */
        uint16_t v = s->aes_ctl | ((s->dout_valid || s->key_valid) && !aes_busy(s) ? AES_RDYIFG : 0);
        return byte ? (off ? v >> 8 : v & 0xFF) : v;
    }
    if (off == 4 || off == 5) { uint16_t v = aes_stat(s); return byte ? (off == 5 ? v >> 8 : v & 0xFF) : v; }
    if (byte) return aes_read_byte(s, off);
    uint32_t lo = aes_read_byte(s, off);
    return lo | (uint32_t)aes_read_byte(s, off) << 8;
}
static void aes_write(sim_t *s, uint32_t off, uint32_t v, int byte) {
    if (off == 0 || off == 1) {
        aes_check_idle(s, "write to AESACTL0");
        uint16_t nv = byte ? (off ? (uint16_t)((s->aes_ctl & 0xFF) | (v & 0xFF) << 8) : (uint16_t)((s->aes_ctl & 0xFF00) | (v & 0xFF)))
                           : (uint16_t)v;
        if (nv & AES_SWRST) {   /* the AES256 module keeps OPx and KLx (SLAU367) */
            uint16_t keep = s->aes_xor_in ? (uint16_t)(s->aes_ctl & 0xF) : 0; aes_reset(s); s->aes_ctl = keep; nv &= (uint16_t)~AES_SWRST; }
        int kl = (nv >> 2) & 3;
        if (kl == 3 || !(s->aes_klmask >> kl & 1))
            fault(s, "AES accelerator: AESACTL0 key length %s is not supported by this module",
                  kl == 3 ? "11 (reserved)" : kl == 1 ? "AES-192" : "AES-256");
        if (kl != aes_kl(s)) { s->keycnt = 0; s->key_valid = 0; }   /* a new key length resets the key memory */
        s->aes_ctl = nv & (uint16_t)~AES_RDYIFG;
        return;
    }
    if (byte) { aes_write_byte(s, off, (uint8_t)v); return; }
    aes_write_byte(s, off, (uint8_t)v);
    aes_write_byte(s, off, (uint8_t)(v >> 8));
}

/* ---------------------------------------------------------------- MPY16 / MPY32 ------------ */
/* Result latency (TARGETS.md, TI SLAU367 Table 5-5, normal mode assumed equal, *unconfirmed*):
 *   16x16 (OP2 write):      RES0/RES1 3, RES2/RES3 4
 *   32-bit OP2 (OP2L/OP2H): RES0 OP2L+3, RES1 max(OP2L+8, OP2H+3), RES2 max(OP2L+10, OP2H+5),
 *                           RES3 max(OP2L+11, OP2H+6)
 *   32-bit OP1 x 16-bit OP2: not in the table; modelled like a 32-bit OP2 written at once (3/8/10/11).
 *   MPY16 (MSP430F1611, SLAU049 "Hardware Multiplier"): result readable by the next instruction, 0.
 * SUMEXT is ready with RES3 (32-bit) / RES1 (16x16). */
static uint64_t umax(uint64_t a, uint64_t b) { return a > b ? a : b; }
static void mpy_compute(sim_t *s, int op2_32, uint32_t op2) {
    int sgn = s->mode & 1, mac = s->mode & 2;
    uint32_t a = s->op1_32 ? s->op1 : (s->op1 & 0xFFFF);
    int64_t prod;
    if (sgn) {
        int64_t sa = s->op1_32 ? (int64_t)(int32_t)a : (int64_t)(int16_t)a;
        int64_t sb = op2_32 ? (int64_t)(int32_t)op2 : (int64_t)(int16_t)op2;
        prod = sa * sb;
    } else {
        prod = (int64_t)((uint64_t)a * (uint64_t)op2);
    }
    int carry = 0;
    if (!s->op1_32 && !op2_32) {           /* 16x16: 32-bit result/accumulator in RES1:RES0 */
        uint32_t p = (uint32_t)prod, r;
        if (mac) { uint64_t sum = (uint64_t)(uint32_t)s->res + p; carry = (int)(sum >> 32); r = (uint32_t)sum; }
        else r = p;
        int neg = (r >> 31) & 1;
        if (s->mode == 2) s->sumext = (uint16_t)carry;              /* MAC: carry */
        else if (sgn) s->sumext = neg ? 0xFFFF : 0;                 /* MPYS/MACS: sign */
        else s->sumext = 0;
        s->res = (uint64_t)r | ((sgn && neg) ? 0xFFFFFFFF00000000ull : 0);
    } else {
        uint64_t p = (uint64_t)prod, r = p;
        if (mac) { r = s->res + p; carry = r < s->res; }
        int neg = (int)(r >> 63);
        if (s->mode == 2) s->sumext = (uint16_t)carry;
        else if (sgn) s->sumext = neg ? 0xFFFF : 0;
        else s->sumext = 0;
        s->res = r;
    }
    s->mpyctl = (uint16_t)((s->mpyctl & ~1u) | (s->sumext & 1));   /* MPYC */
}
static void mpy_reset(sim_t *s) {
    s->op1 = 0; s->op1_32 = 0; s->mode = 0; s->op2l = s->op2h = 0; s->op2_32 = 0; s->op2_pending = 0;
    s->res = 0; s->sumext = 0; s->mpyctl = 0; memset(s->ready, 0, sizeof s->ready); s->t_op2l = 0;
    memset(s->op1reg, 0, sizeof s->op1reg);
}
static void mpy_check_ready(sim_t *s, int k, const char *name) {
    if (s->op2_pending) fault(s, "MPY32: %s read while a 32-bit operation waits for its OP2H write", name);
    if (s->now < s->ready[k])
        fault(s, "MPY32: %s read at cycle %llu, before the result is ready at cycle %llu (%llu cycles early)",
              name, (unsigned long long)s->now, (unsigned long long)s->ready[k],
              (unsigned long long)(s->ready[k] - s->now));
}
static const char *const RESNAME[4] = {"RES0/RESLO", "RES1/RESHI", "RES2", "RES3"};
static uint32_t mpy_read(sim_t *s, uint32_t off, int byte) {
    uint32_t v;
    if (byte) fault(s, "multiplier: byte read of register at offset 0x%X", off);
    if (s->mpy_kind == 1 && off > 0x0E) fault(s, "MPY: no register at offset 0x%X", off);
    switch (off) {
    case 0x0A: case 0x24: mpy_check_ready(s, 0, RESNAME[0]); return (uint32_t)(s->res & 0xFFFF);
    case 0x0C: case 0x26: mpy_check_ready(s, 1, RESNAME[1]); return (uint32_t)(s->res >> 16) & 0xFFFF;
    case 0x28: mpy_check_ready(s, 2, RESNAME[2]); return (uint32_t)(s->res >> 32) & 0xFFFF;
    case 0x2A: mpy_check_ready(s, 3, RESNAME[3]); return (uint32_t)(s->res >> 48) & 0xFFFF;
    case 0x0E: mpy_check_ready(s, (s->op1_32 || s->op2_32) ? 3 : 1, "SUMEXT"); return s->sumext;
    case 0x2C: v = s->mpyctl & ~0xC6u;
        v |= (uint32_t)(s->mode << 1) | (s->op1_32 ? 0x40 : 0) | (s->op2_32 ? 0x80 : 0);
        return v;
    case 0x20: return s->op2l;
    case 0x22: return s->op2h;
    default:
        if (off < 0x20) return s->op1reg[off / 2];
        fault(s, "MPY32: no register at offset 0x%X", off);
    }
}
static void mpy_write(sim_t *s, uint32_t off, uint32_t v, int byte) {
    if (s->mpy_kind == 1 && off > 0x0E) fault(s, "MPY: no register at offset 0x%X", off);
    int is_op = off <= 0x08 || (off >= 0x10 && off <= 0x22);
    if (byte && !is_op) fault(s, "multiplier: byte write to register at offset 0x%X", off);
    if (byte) v = (v & 0x80) && (s->mode & 1) && off != 0x08 ? (v | 0xFF00) : (v & 0xFF);
    v &= 0xFFFF;
    if (off < 0x20) s->op1reg[off / 2] = (uint16_t)v;
    if (off <= 0x06) {                     /* MPY MPYS MAC MACS: 16-bit operand 1 */
        s->op1 = v; s->op1_32 = 0; s->mode = (int)(off / 2);
        if (byte && (s->mode & 1) && (v & 0x80)) s->op1 = v | 0xFF00;
    } else if (off == 0x08) {              /* OP2: start */
        if (byte && (s->mode & 1) && (v & 0x80)) v |= 0xFF00;
        s->op2_32 = 0; s->op2_pending = 0;
        mpy_compute(s, 0, v);
        if (s->mpy_kind == 1) { for (int k = 0; k < 4; k++) s->ready[k] = s->now; }
        else if (!s->op1_32) { s->ready[0] = s->ready[1] = s->now + 3; s->ready[2] = s->ready[3] = s->now + 4; }
        else { s->ready[0] = s->now + 3; s->ready[1] = s->now + 8; s->ready[2] = s->now + 10; s->ready[3] = s->now + 11; }
    } else if (off >= 0x10 && off <= 0x1E) { /* MPY32L/H ... MACS32L/H: 32-bit operand 1 */
        s->mode = (int)((off - 0x10) / 4);
        if (off & 2) s->op1 = (s->op1 & 0xFFFF) | v << 16;
        else s->op1 = (s->op1 & 0xFFFF0000u) | v;
        s->op1_32 = 1;
    } else if (off == 0x20) {              /* OP2L: a 32-bit OP2 begins */
        s->op2l = (uint16_t)v; s->op2_32 = 1; s->op2_pending = 1; s->t_op2l = s->now;
    } else if (off == 0x22) {              /* OP2H completes it */
        s->op2h = (uint16_t)v; s->op2_32 = 1; s->op2_pending = 0;
        mpy_compute(s, 1, (uint32_t)s->op2l | v << 16);
        s->ready[0] = s->t_op2l + 3;
        s->ready[1] = umax(s->t_op2l + 8, s->now + 3);
        s->ready[2] = umax(s->t_op2l + 10, s->now + 5);
        s->ready[3] = umax(s->t_op2l + 11, s->now + 6);
    } else if (off == 0x0A || off == 0x24) { s->res = (s->res & ~0xFFFFull) | v;
    } else if (off == 0x0C || off == 0x26) { s->res = (s->res & ~0xFFFF0000ull) | (uint64_t)v << 16;
    } else if (off == 0x28) { s->res = (s->res & ~0xFFFF00000000ull) | (uint64_t)v << 32;
    } else if (off == 0x2A) { s->res = (s->res & 0xFFFFFFFFFFFFull) | (uint64_t)v << 48;
    } else if (off == 0x2C) {
        if (v & 0x330) fault(s, "MPY32CTL0 = 0x%04X: saturation/fractional/delayed-write modes are not modelled", v);
        s->mpyctl = (uint16_t)(v & 1);     /* MPYC writable; mode/size bits are status */
    } else fault(s, "multiplier: write to read-only or reserved register at offset 0x%X", off);
}

/* ---------------------------------------------------------------- memory ------------------ */
static uint32_t periph_read(sim_t *s, uint32_t a, int byte) {
    switch (s->kind[a]) {
    case K_MPY: return mpy_read(s, a - s->mpy_base, byte);
    case K_AES: return aes_read(s, a - s->aes_base, byte);
    case K_WDT: return 0;                  /* WDTCTL: the model has no watchdog */
    default: fault(s, "unmapped %s read at 0x%05X", byte ? "byte" : "word", a);
    }
}
static void periph_write(sim_t *s, uint32_t a, uint32_t v, int byte) {
    switch (s->kind[a]) {
    case K_MPY: mpy_write(s, a - s->mpy_base, v, byte); return;
    case K_AES: aes_write(s, a - s->aes_base, v, byte); return;
    case K_WDT: return;                    /* writes to WDTCTL are accepted and ignored */
    case K_FLASH: fault(s, "%s write to flash at 0x%05X", byte ? "byte" : "word", a);
    default: fault(s, "unmapped %s write at 0x%05X", byte ? "byte" : "word", a);
    }
}
static inline void watch(sim_t *s, uint32_t a) {
    if (a - s->sw_lo < s->sw_span && a < s->sw_low) s->sw_low = a;
}
static inline uint32_t rd8(sim_t *s, uint32_t a) {
    if (s->stats_on) s->mem_r++;
    uint8_t k = s->kind[a];
    if (k == K_RAM || k == K_FLASH) return s->mem[a];
    return periph_read(s, a, 1) & 0xFF;
}
static inline uint32_t rd16(sim_t *s, uint32_t a) {
    if (a & 1) fault(s, "unaligned word read at 0x%05X", a);
    if (s->stats_on) s->mem_r++;
    uint8_t k = s->kind[a];
    if (k == K_RAM || k == K_FLASH) return (uint32_t)s->mem[a] | (uint32_t)s->mem[a + 1] << 8;
    return periph_read(s, a, 0) & 0xFFFF;
}
static inline void wr8(sim_t *s, uint32_t a, uint32_t v) {
    if (s->stats_on) s->mem_w++;
    if (s->kind[a] == K_RAM) { s->mem[a] = (uint8_t)v; watch(s, a); return; }
    periph_write(s, a, v & 0xFF, 1);
}
static inline void wr16(sim_t *s, uint32_t a, uint32_t v) {
    if (a & 1) fault(s, "unaligned word write at 0x%05X", a);
    if (s->stats_on) s->mem_w++;
    if (s->kind[a] == K_RAM) { s->mem[a] = (uint8_t)v; s->mem[a + 1] = (uint8_t)(v >> 8); watch(s, a); return; }
    periph_write(s, a, v & 0xFFFF, 0);
}
enum { SZ_B, SZ_W, SZ_A };
static const uint32_t MASK[3] = {0xFF, 0xFFFF, 0xFFFFF};
static const uint32_t MSB[3] = {0x80, 0x8000, 0x80000};
static inline uint32_t rdsz(sim_t *s, uint32_t a, int sz) {
    if (sz == SZ_B) return rd8(s, a);
    if (sz == SZ_W) return rd16(s, a);
    /* 20-bit data: low word at a, bits 19:16 in the low nibble of the word at a+2 (SLAU208 4.4.1) */
    uint32_t lo = rd16(s, a);
    return lo | (rd16(s, (a + 2) & 0xFFFFF) & 0xF) << 16;
}
static inline void wrsz(sim_t *s, uint32_t a, uint32_t v, int sz) {
    if (sz == SZ_B) wr8(s, a, v);
    else if (sz == SZ_W) wr16(s, a, v);
    else { wr16(s, a, v & 0xFFFF); wr16(s, (a + 2) & 0xFFFFF, (v >> 16) & 0xF); }
}
static inline uint32_t fetch(sim_t *s) {
    uint32_t a = s->r[0];
    uint8_t k = s->kind[a];
    if (k != K_RAM && k != K_FLASH) fault(s, "instruction fetch from unmapped address 0x%05X", a);
    s->r[0] = (a + 2) & s->amask;
    return (uint32_t)s->mem[a] | (uint32_t)s->mem[a + 1] << 8;
}

/* ---------------------------------------------------------------- CPU ---------------------- */
#define FC 0x001
#define FZ 0x002
#define FN 0x004
#define FV 0x100
#define CPUOFF 0x010

static inline void set_flags(sim_t *s, int c, int z, int n, int v) {
    s->r[2] = (s->r[2] & ~(uint32_t)(FC | FZ | FN | FV)) | (c ? FC : 0) | (z ? FZ : 0) | (n ? FN : 0) | (v ? FV : 0);
}
static inline void set_nz_keep(sim_t *s, uint32_t r, int sz, int c, int keepv) {
    uint32_t v = s->r[2] & FV;
    set_flags(s, c, r == 0, (r & MSB[sz]) != 0, 0);
    if (keepv) s->r[2] |= v;
}
static inline void write_reg(sim_t *s, int rd, uint32_t v) {
    switch (rd) {
    case 0: s->r[0] = v & s->amask & ~1u; break;
    case 1: s->r[1] = v & s->amask & ~1u; break;   /* SP bit 0 is always 0 */
    case 2: s->r[2] = v & 0xFFFF; break;
    case 3: break;                                  /* CG2: writes go nowhere */
    default: s->r[rd] = v & s->amask;
    }
}

/* Source addressing mode from the As/Rs fields (SLAU208 4.4 / Table "Source/Destination
 * addressing"): R2/R3 with As give the constant generator, which costs as a register. */
static inline int src_mode(int As, int rs) {
    if (rs == 3) return M_CG;
    if (rs == 2 && As >= 2) return M_CG;
    switch (As) {
    case 0: return M_RN;
    case 1: return rs == 0 ? M_SYM : rs == 2 ? M_ABS : M_IDX;
    case 2: return M_IND;
    default: return rs == 0 ? M_IMM : M_INC;
    }
}
static inline int dst_class(int Ad, int rd) {
    if (!Ad) return rd == 0 ? D_PC : D_REG;
    return rd == 0 ? D_SYM : rd == 2 ? D_ABS : D_IDX;
}
/* Effective address of x(Rn) / EDE.  MSP430 (non-X) instructions on the CPUX: a base in the lower
 * 64 KB wraps within 64 KB, otherwise the sign-extended index is added in 20 bits (SLAU208 4.4.1.2).
 * X instructions add a 20-bit index (modulo 1 MB). The original CPU has 16-bit addresses only. */
static inline uint32_t ea_index(sim_t *s, uint32_t base, uint32_t x, int xform, uint32_t hi) {
    if (!s->isax) return (base + x) & 0xFFFF;
    if (xform) return (base + ((hi << 16) | x)) & 0xFFFFF;
    if (base < 0x10000) return (base + x) & 0xFFFF;
    return (base + (uint32_t)(int32_t)(int16_t)x) & 0xFFFFF;
}
static inline uint32_t cg_value(int As, int rs, int sz) {
    if (rs == 3) { static const uint32_t v[4] = {0, 1, 2, 0xFFFFF}; return v[As] & MASK[sz]; }
    return As == 2 ? 4 : 8;
}
/* Resolve a source-style operand (As, Rs) after the mode is known: returns 1 and *addr for a memory
 * operand, 0 and *val for a register/constant.  Fetches extension words and does auto-increment. */
static inline int resolve(sim_t *s, int mode, int rs, int sz, int xform, uint32_t hi, int As,
                          uint32_t *addr, uint32_t *val) {
    uint32_t x, at;
    switch (mode) {
    case M_RN: *val = s->r[rs] & MASK[sz]; return 0;
    case M_CG: *val = cg_value(As, rs, sz); return 0;
    case M_IDX: x = fetch(s); *addr = ea_index(s, s->r[rs], x, xform, hi); return 1;
    case M_SYM:  /* base: the index word's address; for X instructions the prefix's address
                  * (s->ipc), which is what GNU ld's R_MSP430X_PCR20_EXT_* relocations assume
                  * (the manual's X example was not checked) */
        at = xform ? s->ipc : s->r[0]; x = fetch(s); *addr = ea_index(s, at, x, xform, hi); return 1;
    case M_ABS: x = fetch(s); *addr = xform ? ((hi << 16) | x) : x; return 1;
    case M_IND: *addr = s->r[rs] & s->amask; return 1;
    case M_INC: {
        uint32_t a = s->r[rs] & s->amask;
        uint32_t inc = sz == SZ_A ? 4 : (sz == SZ_W || rs <= 1) ? 2 : 1;
        *addr = a;
        s->r[rs] = (a + inc) & s->amask;
        return 1; }
    default: /* M_IMM */
        x = fetch(s); *val = (xform ? ((hi << 16) | x) : x) & MASK[sz]; return 0;
    }
}

static inline uint32_t dadd(uint32_t a, uint32_t b, int sz, int *c) {
    /* Decimal add digit by digit (SLAU208 DADD); results for non-BCD digits are undefined in the
     * manual, the model does the plain digit rule "sum > 9 -> subtract 10, carry". */
    int nd = sz == SZ_B ? 2 : sz == SZ_W ? 4 : 5;
    uint32_t r = 0;
    int cy = *c;
    for (int i = 0; i < nd; i++) {
        uint32_t d = ((a >> (4 * i)) & 15) + ((b >> (4 * i)) & 15) + (uint32_t)cy;
        cy = d > 9;
        if (cy) d -= 10;
        r |= (d & 15) << (4 * i);
    }
    *c = cy;
    return r;
}

/* Format I ALU (SLAU208 4.6 instruction descriptions for the flag rules).  Returns the result and
 * sets *wr when the destination is written. */
static inline uint32_t alu1(sim_t *s, int op, uint32_t sv, uint32_t dv, int sz, int zc, int *wr) {
    uint32_t m = MASK[sz], msb = MSB[sz], r, c_in = zc ? 0 : (s->r[2] & FC);
    int bits = sz == SZ_B ? 8 : sz == SZ_W ? 16 : 20;
    *wr = 1;
    switch (op) {
    case 0x4: return sv;                                           /* MOV: no flags */
    case 0x5: c_in = 0; /* fall through */                         /* ADD */
    case 0x6: r = dv + sv + c_in;                                  /* ADDC */
        set_flags(s, (r >> bits) & 1, (r & m) == 0, (r & msb) != 0, (~(sv ^ dv) & (sv ^ r) & msb) != 0);
        return r & m;
    case 0x9: *wr = 0; /* fall through */                          /* CMP */
    case 0x8: c_in = 1; /* fall through */                         /* SUB */
    case 0x7: {                                                    /* SUBC: dst + ~src + C */
        uint32_t ns = ~sv & m;
        r = dv + ns + c_in;
        set_flags(s, (r >> bits) & 1, (r & m) == 0, (r & msb) != 0, (~(ns ^ dv) & (ns ^ r) & msb) != 0);
        return r & m; }
    case 0xA: {                                                    /* DADD: V undefined -> unchanged */
        int c = (int)c_in;
        r = dadd(sv, dv, sz, &c);
        set_nz_keep(s, r, sz, c, 1);
        return r; }
    case 0xB: *wr = 0; /* fall through */                          /* BIT */
    case 0xF: r = sv & dv;                                         /* AND: C = !Z, V = 0 */
        set_flags(s, r != 0, r == 0, (r & msb) != 0, 0);
        return r;
    case 0xC: return dv & ~sv & m;                                 /* BIC: no flags */
    case 0xD: return dv | sv;                                      /* BIS: no flags */
    default:  r = sv ^ dv;                                         /* XOR: V = both negative */
        set_flags(s, r != 0, r == 0, (r & msb) != 0, (sv & msb) && (dv & msb));
        return r;
    }
}

static void exec_fmt1(sim_t *s, uint32_t w, int xform, uint32_t ext) {
    int op = (int)(w >> 12), rs = (int)(w >> 8) & 15, Ad = (int)(w >> 7) & 1, bw = (int)(w >> 6) & 1;
    int As = (int)(w >> 4) & 3, rd = (int)w & 15;
    int sz = bw ? SZ_B : SZ_W, zc = 0, cnt = 1;
    uint32_t shi = 0, dhi = 0;
    if (xform) {
        int al = (int)(ext >> 6) & 1;
        if (!al && !bw) fault(s, "extension word 0x%04X with A/L=0 and B/W=0 is reserved", ext);
        sz = al ? (bw ? SZ_B : SZ_W) : SZ_A;
        if (As == 0 && Ad == 0) {          /* register mode: ZC, repetition count (SLAU208 4.5.2.3) */
            zc = (int)(ext >> 8) & 1;
            cnt = (ext & 0x80) ? (int)(s->r[ext & 15] & 15) + 1 : (int)(ext & 15) + 1;
        } else { shi = (ext >> 7) & 15; dhi = ext & 15; }
    }
    int sm = src_mode(As, rs), dc = dst_class(Ad, rd), tm = sm == M_CG ? M_RN : sm;
    int mbc = op == 0x4 || op == 0xB || op == 0x9;
    int cyc;
    if (!xform) {
        cyc = s->t.fmt1[tm][dc];                                   /* [208-FI] / [144-FI] */
        if (dc >= D_IDX && mbc) cyc -= s->t.fmt1_mbc_mem;          /* [208-FI] note: MOV/BIT/CMP to memory 1 less (0 on [144-FI]) */
    } else if (cnt > 1) {
        if (dc != D_REG) fault(s, "repeated (RPT) instruction with PC destination");
        cyc = cnt + s->t.rpt_base;                                 /* [208-XFI] note: a repeated instruction takes n+1 */
    } else {
        int a = sz == SZ_A;
        cyc = s->t.fmt1x[a][tm][dc];                               /* [208-XFI] */
        if (dc >= D_IDX && mbc) cyc -= s->t.fmt1x_mbc_mem[a];      /* [208-XFI] note: MOV/BIT/CMP to memory -1 (.A -2) */
        if (dc == D_PC && (op == 0x4 || op == 0x5 || op == 0x8) &&
            (tm == M_IMM || tm == M_IDX || tm == M_SYM || tm == M_ABS))
            cyc -= s->t.fmt1x_pc_mas;                              /* [208-XFI] note (TARGETS.md): MOV/ADD/SUB to PC from #N/memory -1 */
    }
    s->now = s->cycles + (uint64_t)cyc;
    if (s->stats_on) { s->opcount[(xform ? OP_F1X : OP_F1) + op - 4]++; s->srcmode[sm]++; s->dstmode[dc]++; }

    for (int i = 0; i < cnt; i++) {
        uint32_t saddr = 0, sv = 0, daddr = 0, dv;
        int wr;
        if (resolve(s, sm, rs, sz, xform, shi, As, &saddr, &sv)) sv = rdsz(s, saddr, sz);
        if (!Ad) {
            dv = rd == 3 ? 0 : s->r[rd] & MASK[sz];
            uint32_t r = alu1(s, op, sv, dv, sz, zc, &wr);
            if (wr) {
                if (!xform && sz == SZ_W && rd == 0) r &= 0xFFFF;
                write_reg(s, rd, r);
            }
        } else {
            uint32_t at = s->r[0], x = fetch(s);
            if (rd == 2) daddr = xform ? ((dhi << 16) | x) : x;
            else daddr = ea_index(s, rd == 0 ? (xform ? s->ipc : at) : (rd == 3 ? 0 : s->r[rd]), x, xform, dhi);
            dv = op == 0x4 ? 0 : rdsz(s, daddr, sz);
            uint32_t r = alu1(s, op, sv, dv, sz, zc, &wr);
            if (wr) wrsz(s, daddr, r, sz);
        }
    }
}

static inline void push16(sim_t *s, uint32_t v) { s->r[1] = (s->r[1] - 2) & s->amask; wr16(s, s->r[1], v & 0xFFFF); }
static inline void push20(sim_t *s, uint32_t v) { s->r[1] = (s->r[1] - 4) & s->amask; wrsz(s, s->r[1], v, SZ_A); }
static inline uint32_t pop16(sim_t *s) { uint32_t v = rd16(s, s->r[1]); s->r[1] = (s->r[1] + 2) & s->amask; return v; }
static inline uint32_t pop20(sim_t *s) { uint32_t v = rdsz(s, s->r[1], SZ_A); s->r[1] = (s->r[1] + 4) & s->amask; return v; }

/* Format II: RRC SWPB RRA SXT PUSH CALL (and their X forms RRCX/RRUX SWPBX RRAX SXTX PUSHX). */
static void exec_fmt2(sim_t *s, uint32_t w, int xform, uint32_t ext) {
    int op = (int)(w >> 7) & 7, bw = (int)(w >> 6) & 1, As = (int)(w >> 4) & 3, rs = (int)w & 15;
    int sz = bw ? SZ_B : SZ_W, zc = 0, cnt = 1;
    uint32_t hi = 0;
    if (!xform) {
        if (bw && (op == 1 || op == 3 || op == 5)) fault(s, "undefined instruction 0x%04X (byte form of SWPB/SXT/CALL)", w);
    } else {
        int al = (int)(ext >> 6) & 1;
        if (op == 5) fault(s, "CALL cannot take an extension word (use CALLA)");
        if (op == 1 || op == 3) {          /* SWPBX/SXTX: .A is A/L=0 with B/W=0; B/W=1 undefined */
            if (bw) fault(s, "undefined instruction: SWPBX/SXTX with B/W=1");
            sz = al ? SZ_W : SZ_A;
        } else {
            if (!al && !bw) fault(s, "extension word 0x%04X with A/L=0 and B/W=0 is reserved", ext);
            sz = al ? (bw ? SZ_B : SZ_W) : SZ_A;
        }
        if (As == 0) {
            zc = (int)(ext >> 8) & 1;
            cnt = (ext & 0x80) ? (int)(s->r[ext & 15] & 15) + 1 : (int)(ext & 15) + 1;
            if (cnt > 1 && op == 4) fault(s, "PUSHX cannot be repeated");
        } else hi = (ext >> 7) & 15;
    }
    int sm = src_mode(As, rs), tm = sm == M_CG ? M_RN : sm;
    int cls = op <= 3 ? F2_SHIFT : op == 4 ? F2_PUSH : F2_CALL;
    int cyc;
    if (!xform) cyc = s->t.fmt2[cls][tm];                          /* [208-FII] / [144-FII] */
    else if (cnt > 1) cyc = cnt + s->t.rpt_base;                   /* [208-XFII]: RRAX/RRCX Rn 1+n (n repetitions) */
    else cyc = s->t.fmt2x[cls][sz == SZ_A][tm];                    /* [208-XFII] */
    if (cyc < 0) fault(s, "instruction 0x%04X: addressing mode not valid for this instruction", w);
    s->now = s->cycles + (uint64_t)cyc;
    if (s->stats_on) {
        int id = xform ? (op == 0 && zc ? OP_RRUX : OP_F2X + op) : OP_F2 + op;
        s->opcount[id]++; s->srcmode[sm]++;
    }
    uint32_t m = MASK[sz], msb = MSB[sz];
    for (int i = 0; i < cnt; i++) {
        uint32_t addr = 0, v = 0;
        int mem = resolve(s, sm, rs, sz, xform, hi, As, &addr, &v);
        if (mem) v = rdsz(s, addr, sz);
        uint32_t r;
        switch (op) {
        case 0: {                                                  /* RRC (RRUX when ZC=1): V reset */
            uint32_t cin = zc ? 0 : (s->r[2] & FC);
            r = (v >> 1) | (cin ? msb : 0);
            set_flags(s, v & 1, r == 0, (r & msb) != 0, 0);
            break; }
        case 2: r = (v >> 1) | (v & msb);                          /* RRA: V reset */
            set_flags(s, v & 1, r == 0, (r & msb) != 0, 0);
            break;
        case 1:                                                    /* SWPB: no flags; .A keeps 19:16 */
            r = ((v >> 8) & 0xFF) | ((v & 0xFF) << 8) | (sz == SZ_A ? (v & 0xF0000) : 0);
            break;
        case 3: {                                                  /* SXT: C = !Z, V = 0 */
            uint32_t ext20 = (v & 0x80) ? ((v | 0xFFF00) & 0xFFFFF) : (v & 0xFF);
            /* memory: operand width; register on the CPUX: SXT gives Rdst.19:8 = Rdst.7 (SLAU208 SXT),
             * SXTX.W clears 19:16, SXTX.A extends to 20 bits; the original CPU has 16-bit registers */
            if (mem) r = ext20 & m;
            else if (!xform) r = s->isax ? ext20 : (ext20 & 0xFFFF);
            else r = ext20 & m;
            set_flags(s, r != 0, r == 0, (r & 0x80) != 0, 0);
            break; }
        case 4:                                                    /* PUSH / PUSHX */
            if (sz == SZ_A) push20(s, v);
            else { s->r[1] = (s->r[1] - 2) & s->amask; if (sz == SZ_B) wr8(s, s->r[1], v); else wr16(s, s->r[1], v); }
            continue;
        default: {                                                 /* CALL: 16-bit target, 16-bit return address */
            uint32_t target = v & 0xFFFF;
            push16(s, s->r[0]);
            s->r[0] = target & ~1u;
            continue; }
        }
        if (mem) wrsz(s, addr, r, sz);
        else if (sm == M_RN) write_reg(s, rs, r);
    }
}

static void exec_jump(sim_t *s, uint32_t w) {
    int cond = (int)(w >> 10) & 7, take;
    uint32_t sr = s->r[2];
    s->now = s->cycles + (uint64_t)s->t.jump;                    /* [208-J]/[144]: 2 cycles, taken or not */
    if (s->stats_on) s->opcount[OP_J + cond]++;
    switch (cond) {
    case 0: take = !(sr & FZ); break;                             /* JNE */
    case 1: take = (sr & FZ) != 0; break;                         /* JEQ */
    case 2: take = !(sr & FC); break;                             /* JNC */
    case 3: take = (sr & FC) != 0; break;                         /* JC */
    case 4: take = (sr & FN) != 0; break;                         /* JN */
    case 5: take = !(sr & FN) == !(sr & FV); break;               /* JGE: N xor V = 0 */
    case 6: take = !(sr & FN) != !(sr & FV); break;               /* JL */
    default: take = 1;                                            /* JMP */
    }
    if (take) {
        int32_t off = (int32_t)(w & 0x3FF);
        if (off & 0x200) off -= 0x400;
        s->r[0] = (s->r[0] + (uint32_t)(off * 2)) & s->amask;
    }
}

static void exec_reti_calla(sim_t *s, uint32_t w) {
    if (w == 0x1300) {                                            /* RETI */
        s->now = s->cycles + (uint64_t)s->t.reti;                 /* [208-IRQ]/[144-IRQ] */
        if (s->stats_on) s->opcount[OP_RETI]++;
        uint32_t sr = pop16(s), pc = pop16(s);
        if (s->isax) { pc |= (sr & 0xF000) << 4; sr &= 0x0FFF; }  /* CPUX keeps PC.19:16 in SR.15:12 */
        s->r[2] = sr; s->r[0] = pc & ~1u;
        return;
    }
    if (!s->isax) fault(s, "undefined instruction 0x%04X (MSP430X CALLA on an MSP430 CPU)", w);
    int sub = (int)(w >> 4) & 15, rn = (int)w & 15, mode;
    switch (sub) {
    case 4: mode = M_RN; break;
    case 5: mode = M_IDX; break;
    case 6: mode = M_IND; break;
    case 7: mode = M_INC; break;
    case 8: mode = M_ABS; break;
    case 9: mode = M_SYM; break;
    case 11: mode = M_IMM; break;
    default: fault(s, "undefined instruction 0x%04X", w);
    }
    int cyc = s->t.calla[mode];                                   /* [208-XFII] CALLA */
    if (mode == M_IDX && rn == 1) cyc += s->t.calla_idx_sp_extra; /* [208-XFII] CALLA x(SP): +1 */
    s->now = s->cycles + (uint64_t)cyc;
    if (s->stats_on) { s->opcount[OP_CALLA]++; s->srcmode[mode]++; }
    uint32_t target, x, at;
    switch (mode) {
    case M_RN: target = s->r[rn]; break;
    case M_IDX: x = fetch(s); target = rdsz(s, (s->r[rn] + (uint32_t)(int32_t)(int16_t)x) & 0xFFFFF, SZ_A); break;
    case M_IND: target = rdsz(s, s->r[rn], SZ_A); break;
    case M_INC: target = rdsz(s, s->r[rn], SZ_A); s->r[rn] = (s->r[rn] + 4) & 0xFFFFF; break;
    case M_ABS: x = fetch(s); target = rdsz(s, ((uint32_t)rn << 16) | x, SZ_A); break;
    case M_SYM: /* CALLA EDE: 20-bit offset from the instruction's address (as GNU ld resolves it) */
        at = s->ipc; x = fetch(s); target = rdsz(s, (at + (((uint32_t)rn << 16) | x)) & 0xFFFFF, SZ_A); break;
    default: x = fetch(s); target = ((uint32_t)rn << 16) | x;
    }
    push20(s, s->r[0]);
    s->r[0] = target & 0xFFFFE;
}

static void exec_pushm_popm(sim_t *s, uint32_t w) {
    int kind = (int)(w >> 8) & 3, n = (int)((w >> 4) & 15) + 1, rd = (int)w & 15;
    int a = !(kind & 1);                                          /* 00 PUSHM.A 01 PUSHM.W 10 POPM.A 11 POPM.W */
    int cyc;
    if (kind < 2) {
        if (rd - n + 1 < 0) fault(s, "PUSHM #%d, R%d runs below R0", n, rd);
        cyc = s->t.pushm_base + n * s->t.pushm_per[a];            /* [208-XFII] PUSHM .W 2+n, .A 2+2n */
    } else {
        if (rd + n - 1 > 15) fault(s, "POPM #%d beyond R15", n);
        cyc = s->t.popm_base + n * s->t.popm_per[a];              /* [208-XFII] POPM .W 2+n, .A 2+2n */
    }
    s->now = s->cycles + (uint64_t)cyc;
    if (s->stats_on) s->opcount[kind < 2 ? OP_PUSHM : OP_POPM]++;
    if (kind < 2) {
        for (int i = 0; i < n; i++) { uint32_t v = s->r[rd - i]; if (a) push20(s, v); else push16(s, v); }
    } else {                                                      /* field holds the lowest register */
        for (int i = 0; i < n; i++) write_reg(s, rd + i, a ? pop20(s) : pop16(s));
    }
}

/* MOVA/CMPA/ADDA/SUBA and RRCM/RRAM/RLAM/RRUM (opcode 0x0xxx). */
static void exec_addr(sim_t *s, uint32_t w) {
    int sub = (int)(w >> 4) & 15, rs = (int)(w >> 8) & 15, rd = (int)w & 15;
    if (sub == 4 || sub == 5) {                                   /* RxxM #n, Rdst */
        int n = (int)((w >> 10) & 3) + 1, kind = (int)(w >> 8) & 3, sz = sub == 5 ? SZ_W : SZ_A;
        s->now = s->cycles + (uint64_t)(n * s->t.rxxm_per_shift); /* [208-XFII] RRAM/RRCM/RRUM/RLAM #n: n */
        if (s->stats_on) s->opcount[OP_RXXM + kind]++;
        uint32_t v = s->r[rd] & MASK[sz], msb = MSB[sz], c = s->r[2] & FC;
        for (int i = 0; i < n; i++) {
            switch (kind) {
            case 0: { uint32_t nc = v & 1; v = (v >> 1) | (c ? msb : 0); c = nc; break; }   /* RRCM */
            case 1: c = v & 1; v = (v >> 1) | (v & msb); break;                             /* RRAM */
            case 2: c = (v & msb) != 0; v = (v << 1) & MASK[sz]; break;                     /* RLAM */
            default: c = v & 1; v >>= 1;                                                    /* RRUM */
            }
        }
        /* V: reset for RRCM/RRAM/RRUM; undefined for RLAM (SLAU208) -> left unchanged */
        set_nz_keep(s, v, sz, (int)c, kind == 2);
        write_reg(s, rd, v);
        return;
    }
    static const int8_t SRCMODE[16] = {M_IND, M_INC, M_ABS, M_IDX, -1, -1, M_RN, M_RN, M_IMM, M_IMM, M_IMM, M_IMM, M_RN, M_RN, M_RN, M_RN};
    int mode = SRCMODE[sub];
    int cyc, opid, dkind = rd == 0 ? MV_PC : MV_REG;
    if (sub == 6 || sub == 7) dkind = MV_MEM;
    if (sub <= 8 || sub == 12) {                                  /* MOVA */
        opid = OP_MOVA;
        cyc = s->t.mova[mode][dkind];                             /* [208-ADDR] MOVA */
    } else {
        opid = OP_MOVA + ((sub & 3));                             /* 1 CMPA 2 ADDA 3 SUBA */
        cyc = s->t.adda[mode == M_IMM][dkind == MV_PC];           /* [208-ADDR] CMPA/ADDA/SUBA */
    }
    if (cyc < 0) fault(s, "undefined address instruction 0x%04X", w);
    s->now = s->cycles + (uint64_t)cyc;
    if (s->stats_on) { s->opcount[opid]++; s->srcmode[mode]++; }
    uint32_t v, x, at;
    switch (sub) {
    case 0: v = rdsz(s, s->r[rs], SZ_A); write_reg(s, rd, v); return;
    case 1: v = rdsz(s, s->r[rs], SZ_A); s->r[rs] = (s->r[rs] + 4) & 0xFFFFF; write_reg(s, rd, v); return;
    case 2: x = fetch(s); write_reg(s, rd, rdsz(s, ((uint32_t)rs << 16) | x, SZ_A)); return;
    case 3: at = s->r[0]; x = fetch(s);  /* x(PC) is the symbolic form EDE */
        write_reg(s, rd, rdsz(s, ((rs == 0 ? at : s->r[rs]) + (uint32_t)(int32_t)(int16_t)x) & 0xFFFFF, SZ_A)); return;
    case 6: x = fetch(s); wrsz(s, ((uint32_t)rd << 16) | x, rs == 3 ? 0 : s->r[rs], SZ_A); return;
    case 7: at = s->r[0]; x = fetch(s);
        wrsz(s, ((rd == 0 ? at : s->r[rd]) + (uint32_t)(int32_t)(int16_t)x) & 0xFFFFF, rs == 3 ? 0 : s->r[rs], SZ_A); return;
    case 8: x = fetch(s); write_reg(s, rd, ((uint32_t)rs << 16) | x); return;
    case 12: write_reg(s, rd, rs == 3 ? 0 : s->r[rs]); return;
    default: {                                                    /* CMPA/ADDA/SUBA, 20-bit flags */
        uint32_t sv;
        if (sub < 12) { x = fetch(s); sv = ((uint32_t)rs << 16) | x; } else sv = rs == 3 ? 0 : s->r[rs];
        uint32_t dv = s->r[rd] & 0xFFFFF, r;
        int k = sub & 3;
        if (k == 2) r = dv + sv;
        else sv = ~sv & 0xFFFFF, r = dv + sv + 1;
        set_flags(s, (r >> 20) & 1, (r & 0xFFFFF) == 0, (r & 0x80000) != 0, (~(sv ^ dv) & (sv ^ r) & 0x80000) != 0);
        if (k != 1) write_reg(s, rd, r & 0xFFFFF);
        return; }
    }
}

static void step(sim_t *s) {
    s->ipc = s->r[0];
    uint32_t w = fetch(s);
    if (w >= 0x4000) exec_fmt1(s, w, 0, 0);
    else if (w >= 0x2000) exec_jump(s, w);
    else if (w >= 0x1800) {
        if (!s->isax) fault(s, "undefined instruction 0x%04X (MSP430X extension word on an MSP430 CPU)", w);
        uint32_t w2 = fetch(s);
        if (w2 >= 0x4000) exec_fmt1(s, w2, 1, w);
        else if (w2 >= 0x1000 && w2 < 0x1280) exec_fmt2(s, w2, 1, w);
        else fault(s, "extension word 0x%04X followed by 0x%04X, which takes none", w, w2);
    } else if (w >= 0x1400) {
        if (!s->isax) fault(s, "undefined instruction 0x%04X (MSP430X PUSHM/POPM on an MSP430 CPU)", w);
        exec_pushm_popm(s, w);
    } else if (w >= 0x1300) exec_reti_calla(s, w);
    else if (w >= 0x1000) exec_fmt2(s, w, 0, 0);
    else {
        if (!s->isax) fault(s, "undefined instruction 0x%04X (MSP430X address instruction on an MSP430 CPU)", w);
        exec_addr(s, w);
    }
    s->cycles = s->now;
    s->insns++;
}

/* ---------------------------------------------------------------- C API -------------------- */
sim_t *msp_new(int isax, const int32_t *timing, int ntiming) {
    if (ntiming != msp_timing_words()) return NULL;
    aes_tables();
    sim_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->isax = isax;
    s->amask = isax ? 0xFFFFF : 0xFFFF;
    memcpy(&s->t, timing, sizeof s->t);
    s->sw_span = 0;
    s->sw_low = 0xFFFFFFFFu;
    return s;
}
void msp_free(sim_t *s) { free(s); }
/* kind: 1 RAM, 2 flash (CPU writes fault). Returns -1 if the region leaves the address space or is odd. */
int msp_add_region(sim_t *s, uint32_t origin, uint32_t length, int kind) {
    if ((origin | length) & 1 || origin + length > (s->isax ? 0x100000u : 0x10000u) || (kind != K_RAM && kind != K_FLASH)) return -1;
    memset(s->kind + origin, kind, length);
    return 0;
}
/* kind 1: MPY16 (8 registers), 2: MPY32 (0x2E bytes). */
int msp_set_mpy(sim_t *s, int kind, uint32_t base) {
    uint32_t len = kind == 1 ? 0x10 : 0x30;
    if ((kind != 1 && kind != 2) || base + len > 0x10000) return -1;
    s->mpy_kind = kind; s->mpy_base = base;
    memset(s->kind + base, K_MPY, len);
    return 0;
}
/* The AES module at `base`: `klmask` the key lengths it has (bit 0 AES-128, 1 AES-192, 2 AES-256),
 * `xor_in` whether it has AESAXDIN/AESAXIN, `lat` 12 latencies [key length][encrypt, decrypt,
 * keygen, decrypt with generated key] (entries of missing key lengths unused). */
int msp_set_aes_module(sim_t *s, uint32_t base, int klmask, int xor_in, const uint32_t *lat) {
    if (base + 0x10 > 0x10000 || !(klmask & 1) || klmask > 7) return -1;
    s->aes_on = 1; s->aes_base = base; s->aes_klmask = klmask; s->aes_xor_in = xor_in;
    for (int k = 0; k < 3; k++) for (int o = 0; o < 4; o++) s->lat[k][o] = lat[4 * k + o];
    memset(s->kind + base, K_AES, 0x10);
    return 0;
}
int msp_set_aes(sim_t *s, uint32_t base, uint32_t enc, uint32_t dec, uint32_t keygen, uint32_t decgen) {
    uint32_t lat[12] = {enc, dec, keygen, decgen};
    return msp_set_aes_module(s, base, 1, 0, lat);
}
int msp_set_wdt(sim_t *s, uint32_t addr) {
    if (addr & 1 || addr + 2 > 0x10000) return -1;
    s->wdt_addr = addr;
    s->kind[addr] = s->kind[addr + 1] = K_WDT;
    return 0;
}
void msp_reset(sim_t *s) {
    memset(s->r, 0, sizeof s->r);
    s->cycles = s->insns = s->now = 0;
    s->sw_low = 0xFFFFFFFFu;
    memset(s->opcount, 0, sizeof s->opcount); memset(s->srcmode, 0, sizeof s->srcmode);
    memset(s->dstmode, 0, sizeof s->dstmode); s->mem_r = s->mem_w = 0;
    mpy_reset(s); aes_reset(s);
    s->msg[0] = 0;
}
/* Debugger access: no cycles, no side effects. Returns -1 if a byte lies outside RAM/flash. */
int msp_read_mem(sim_t *s, uint32_t addr, uint8_t *buf, uint32_t n) {
    if (addr + n > 0x100000u) return -1;
    for (uint32_t i = 0; i < n; i++) if (s->kind[addr + i] != K_RAM && s->kind[addr + i] != K_FLASH) return -1;
    memcpy(buf, s->mem + addr, n);
    return 0;
}
int msp_write_mem(sim_t *s, uint32_t addr, const uint8_t *buf, uint32_t n) {
    if (addr + n > 0x100000u) return -1;
    for (uint32_t i = 0; i < n; i++) if (s->kind[addr + i] != K_RAM && s->kind[addr + i] != K_FLASH) return -1;
    memcpy(s->mem + addr, buf, n);
    return 0;
}
uint32_t msp_get_reg(sim_t *s, int i) { return (i >= 0 && i < 16) ? s->r[i] : 0; }
void msp_set_reg(sim_t *s, int i, uint32_t v) {
    if (i < 0 || i > 15) return;
    if (i == 3) return;
    s->r[i] = i == 2 ? (v & 0xFFFF) : (v & s->amask & (i <= 1 ? ~1u : ~0u));
}
uint64_t msp_cycles(sim_t *s) { return s->cycles; }
uint64_t msp_insns(sim_t *s) { return s->insns; }
void msp_set_cycles(sim_t *s, uint64_t c) { s->cycles = c; }
void msp_set_stack_watch(sim_t *s, uint32_t lo, uint32_t hi) {
    s->sw_lo = lo; s->sw_span = hi > lo ? hi - lo : 0; s->sw_low = 0xFFFFFFFFu;
}
int64_t msp_stack_low(sim_t *s) { return s->sw_low == 0xFFFFFFFFu ? -1 : (int64_t)s->sw_low; }
void msp_enable_stats(sim_t *s, int on) { s->stats_on = on; }
int msp_nops(void) { return NOPS; }
const char *msp_op_name(int i) { return (i >= 0 && i < NOPS) ? OPNAMES[i] : ""; }
const char *msp_mode_name(int i) { return (i >= 0 && i < NSRCMODES) ? MODENAMES[i] : ""; }
/* out: NOPS op counts, 8 source-mode counts, 5 destination-class counts, mem reads, mem writes */
int msp_stats(sim_t *s, uint64_t *out, int n) {
    int need = NOPS + NSRCMODES + 5 + 2;
    if (n < need) return -need;
    memcpy(out, s->opcount, NOPS * sizeof(uint64_t));
    memcpy(out + NOPS, s->srcmode, NSRCMODES * sizeof(uint64_t));
    memcpy(out + NOPS + NSRCMODES, s->dstmode, 5 * sizeof(uint64_t));
    out[need - 2] = s->mem_r; out[need - 1] = s->mem_w;
    return need;
}
const char *msp_message(sim_t *s) { return s->msg; }
/* AES busy-until cycle (0 if idle), for tests and the harness's diagnostics. */
uint64_t msp_aes_done(sim_t *s) { return s->aes_done; }

/* Run until PC is in stops (checked before each instruction), max_steps instructions have run,
 * a fault (PC is left at the faulting instruction; message in msp_message) or CPUOFF is set. */
int msp_run(sim_t *s, uint64_t max_steps, const uint32_t *stops, int nstops) {
    s->msg[0] = 0;
    uint64_t end = s->insns + max_steps;
    if (setjmp(s->jb)) { s->r[0] = s->ipc; return ST_FAULT; }
    while (s->insns < end) {
        uint32_t pc = s->r[0];
        for (int i = 0; i < nstops; i++) if (pc == stops[i]) return ST_STOP_PC;
        step(s);
        if (s->r[2] & CPUOFF) return ST_HALT;
    }
    for (int i = 0; i < nstops; i++) if (s->r[0] == stops[i]) return ST_STOP_PC;
    return ST_STEP_LIMIT;
}
