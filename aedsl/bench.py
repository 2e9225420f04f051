"""Measuring compiled specs in the cycle-accurate simulators: the records `aedsl bench` prints.

    recs = bench_spec("specs/schemes/ccm.ae", "cc430f6137", {}, sizes=("16", "ipi", "4096"))
    recs[0].cycles_per_byte

What is measured, and how (docs/BENCHMARKS.md repeats this for readers):
- AEAD schemes go through the thin C runtime (runtime/msp430/, `aedsl.aead_runtime`): the cycles
  of `aedsl_bench_encrypt` / `_decrypt`, i.e. `crypto_aead_encrypt` / `crypto_aead_decrypt` plus
  one wrapper call that widens word lengths to the API's 64-bit ones. With `key_setup="exclude"`
  (seed 000's rule: "the derivation of key-dependent values is not included") the key is expanded
  once and `aedsl_aead_encrypt_with` / `_decrypt_with` are measured; that needs the spec's
  key-setup stage, exported by the backend -- otherwise key setup is included and the record says so.
- Block ciphers call the generated `key_schedule`, `encrypt_block`, `decrypt_block` directly (seed
  003 reports the cipher alone): cycles/byte of one block, and the key schedule's cycles.
- One function (`bench_function`, `aedsl bench --function NAME`): the spec compiled with only that
  function and its callees, called once on random inputs (scalar parameters given by `args`,
  e.g. a permutation's round count) -- a permutation or a keystream step alone, as seed 002 Table 2
  reports its primitives. rom_bytes: that function's code, the subroutines it calls and the
  spec's tables (its callees that are exported too are left out: they are inlined or called
  through their own symbol, which then counts).
- Message, AD, nonce, key and output buffers live in the simulator-only benchmark region
  (`toolchain.bench_region`), so 4 KB messages fit a 4 KB-RAM chip; code, tables and the stack are
  in the chip's own flash and RAM.
- IPI (seed 000, after Krovetz & Rogaway): the weighted mean of cycles/byte over 44 B (5 %),
  552 B (15 %), 576 B (20 %) and 1500 B (60 %); `cycles` is the weighted mean of cycles.
- rom_bytes: code + tables of everything the API needs for both directions (generated functions
  it calls, their tables, the runtime's AEAD functions, compiler support routines), summed from
  the ELF's symbol sizes (aedsl/rom.py; `aedsl bench --rom-detail` lists them); the benchmark
  wrappers and a target's start-up code (reset handler, vector table) are left out, as seed 000
  left out its benchmark code. ram_bytes: static
  data (.data + .bss). stack_bytes: the deepest stack of the measured call (harness watch).
"""
from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path

from aedsl import chips as chips_mod
from aedsl.frontend.diagnostics import SpecError
from aedsl.papers import SEED001_AD, SEED001_MSG
from aedsl.sim.harness import DEFAULT_MAX_STEPS, Buffer, Program


class MeasurementError(RuntimeError):
    """A measured call gave a wrong result (an AEAD entry returned an error, decryption of the
    encryption differs), so its cycles mean nothing."""

IPI_MIX = ((44, 0.05), (552, 0.15), (576, 0.20), (1500, 0.60))
DEFAULT_SIZES = ("16", "ipi", "4096")
SEED001_CPUS = ("cortex-m0",)   # the core seed 001 measured Cifra on (STM32F030)
BUFFERS_NOTE = "buffers in the simulator-only benchmark region"


@dataclass
class Record:
    spec: str
    chip: str
    knobs: dict
    op: str                      # encrypt | decrypt | key_schedule | encrypt_block | decrypt_block
    ad_len: int
    msg_len: int | str           # bytes, or "ipi"
    cycles: float
    cycles_per_byte: float | None
    rom_bytes: int
    ram_bytes: int
    stack_bytes: int
    key_setup: str = ""          # included | excluded | "" (block ciphers: key_schedule is its own record)
    via: str = ""                # runtime API | generated functions
    workload: str = ""           # "" | seed001 | sweep
    notes: list = field(default_factory=list)
    energy_uj: float | None = None          # modelled (aedsl.energy), not measured; None: no [power] data
    energy_nj_per_byte: float | None = None

    def as_dict(self) -> dict:
        return asdict(self)

    def line(self) -> str:
        knobs = ",".join(f"{k}={v}" for k, v in sorted(self.knobs.items())) or "-"
        cpb = "-" if self.cycles_per_byte is None else f"{self.cycles_per_byte:.1f}"
        return (f"{self.spec:<18} {self.chip:<11} {knobs:<28} {self.op:<13} {self.ad_len:>5} {str(self.msg_len):>5} "
                f"{self.cycles:>10.0f} {cpb:>8} {self.rom_bytes:>6} {self.ram_bytes:>5} {self.stack_bytes:>5}"
                + f" {_num(self.energy_uj, 9, 3)} {_num(self.energy_nj_per_byte, 7, 1)}"
                + (f"  key setup {self.key_setup}" if self.key_setup else "") + (f" [{self.workload}]" if self.workload else ""))


def _num(v: float | None, width: int, digits: int) -> str:
    return f"{'-':>{width}}" if v is None else f"{v:>{width}.{digits}f}"


HEADER = (f"{'spec':<18} {'chip':<11} {'knobs':<28} {'op':<13} {'ad':>5} {'msg':>5} {'cycles':>10} {'cyc/B':>8} "
          f"{'ROM':>6} {'RAM':>5} {'stack':>5} {'uJ':>9} {'nJ/B':>7}")
ENERGY_NOTE = "uJ, nJ/B: modelled from the chip file's datasheet current and voltage (aedsl.energy), not measured"


def parse_sizes(text: str | None) -> tuple[str, ...]:
    if not text:
        return DEFAULT_SIZES
    out = []
    for s in text.split(","):
        s = s.strip().lower()
        if s == "4k" or s == "4kb":
            s = "4096"
        if s != "ipi" and not s.isdigit():
            raise ValueError(f"message size {s!r}: expected a byte count or 'ipi'")
        out.append(s)
    return tuple(out)


def _data(n: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(n)


def _b(data) -> Buffer:
    return Buffer(data)            # region chosen per call: see AeadBench._call


BUFFER_SLACK = 64                  # alignment padding of up to 6 buffers

# --- AEAD schemes through the runtime ---------------------------------------------------------

class AeadBench:
    """One compiled AEAD variant linked with the runtime, ready to measure."""

    def __init__(self, unit, chip, max_steps: int = DEFAULT_MAX_STEPS):
        from aedsl import aead_runtime as rt
        self.unit, self.chip, self.max_steps = unit, chip, max_steps
        self.api = rt.api_params(unit)
        self.elf_path = rt.build_with_runtime(unit, chip)
        self.program = Program(self.elf_path, chip, bench=True)
        self.key = _data(self.api.key_bytes, 1)
        self.nonce = _data(self.api.npub_bytes, 2)
        self._state = None
        self.rom_bytes, self.ram_bytes = self._footprint()
        self.regions_used: set[str] = set()

    def _call(self, symbol: str, args):
        """Buffers go to the benchmark region when they fit there (MSP430F1611's is only the
        1.75 KB hole below its flash), else to free RAM above .bss; the stack is real RAM either way."""
        from aedsl.sim.cores import bench_region
        need = sum(len(a.content) for a in args if isinstance(a, Buffer)) + BUFFER_SLACK
        region = "bench" if need <= bench_region(self.chip).length else "ram"
        self.regions_used.add(region)
        return self.program.call(symbol, args, buffer_region=region, max_steps=self.max_steps)

    def _footprint(self) -> tuple[int, int]:
        from aedsl import aead_runtime as rt
        from aedsl.rom import linked_symbols, rom_bytes, rom_items
        used = set(rt.KEY_SETUP_ENTRIES if self.api.key_setup else ("encrypt", "decrypt"))
        self.rom_items = rom_items(self.program.elf, self.unit, used, linked_symbols(rt.api_elf(self.elf_path)))
        return rom_bytes(self.rom_items), self.program.elf.sizes().ram

    def state(self) -> bytes:
        """The expanded key (key-setup stage), computed once in the simulator."""
        if self._state is None:
            r = self._call("aedsl_bench_key_setup", [_b(self.api.state_bytes), _b(self.key)])
            self._state = r.buffers[0]
            self.key_setup_cycles = r.cycles
        return self._state

    def encrypt(self, msg: bytes, ad: bytes, exclude_key_setup: bool):
        n = len(msg)
        if exclude_key_setup:
            r = self._call("aedsl_bench_encrypt_with", [_b(self.state()), _b(n + self.api.tag_bytes), _b(msg), n,
                                                               _b(ad), len(ad), _b(self.nonce)])
            out = r.buffers[1]
        else:
            r = self._call("aedsl_bench_encrypt", [_b(n + self.api.tag_bytes), _b(msg), n, _b(ad), len(ad),
                                                          _b(self.nonce), _b(self.key)])
            out = r.buffers[0]
        if r.return_value != 0:
            raise MeasurementError(f"{self.unit.stem}: crypto_aead_encrypt returned {r.return_value}")
        return r, out

    def decrypt(self, ct: bytes, ad: bytes, exclude_key_setup: bool):
        n = len(ct) - self.api.tag_bytes
        if exclude_key_setup:
            r = self._call("aedsl_bench_decrypt_with", [_b(self.state()), _b(max(n, 1)), _b(ct), len(ct),
                                                               _b(ad), len(ad), _b(self.nonce)])
            out = r.buffers[1][:n]
        else:
            r = self._call("aedsl_bench_decrypt", [_b(max(n, 1)), _b(ct), len(ct), _b(ad), len(ad),
                                                          _b(self.nonce), _b(self.key)])
            out = r.buffers[0][:n]
        return r, out


def _aead_records(unit, chip, sizes, ad_len: int, key_setup: str, workload: str = "",
                  max_steps: int = DEFAULT_MAX_STEPS) -> list[Record]:
    b = AeadBench(unit, chip, max_steps)
    exclude = key_setup == "exclude" and b.api.key_setup
    notes = [BUFFERS_NOTE, f"nonce {b.api.npub_bytes} B, tag {b.api.tag_bytes} B"]
    if key_setup == "exclude" and not b.api.key_setup:
        notes.append("key setup included: the compiled variant exports no key-setup stage")
    ks_text = "excluded" if exclude else "included"
    ad = _data(ad_len, 3)

    def measure(n: int):
        msg = _data(n, 4 + n)
        re, ct = b.encrypt(msg, ad, exclude)
        rd, back = b.decrypt(ct, ad, exclude)
        if rd.return_value != 0 or back != msg:
            raise MeasurementError(f"{unit.stem} on {chip.name}: decryption of the encryption of {n} bytes failed "
                               f"(returned {rd.return_value})")
        return re, rd

    out = []
    for size in sizes:
        lens = IPI_MIX if size == "ipi" else ((int(size), 1.0),)
        runs = [(n, w, measure(n)) for n, w in lens]
        for k, op in enumerate(("encrypt", "decrypt")):
            cycles = sum(w * r[k].cycles for n, w, r in runs)
            cpb = (sum(w * r[k].cycles / n for n, w, r in runs) if all(n for n, _, _ in runs) else None)
            stack = max(r[k].stack_bytes for _, _, r in runs)
            out.append(Record(spec=unit.spec_name, chip=chip.name, knobs=dict(unit.knobs), op=op, ad_len=ad_len,
                              msg_len="ipi" if size == "ipi" else int(size), cycles=cycles, cycles_per_byte=cpb,
                              rom_bytes=b.rom_bytes, ram_bytes=b.ram_bytes, stack_bytes=stack, key_setup=ks_text,
                              via="runtime API", workload=workload, notes=list(notes)))
    where = {"bench": BUFFERS_NOTE, "ram": "buffers in the chip's RAM above .bss"}
    for r in out:
        r.notes = [where[g] for g in sorted(b.regions_used)] + r.notes[1:]
    if exclude:
        b.state()
        out.append(Record(spec=unit.spec_name, chip=chip.name, knobs=dict(unit.knobs), op="key_setup", ad_len=0,
                          msg_len=0, cycles=b.key_setup_cycles, cycles_per_byte=None, rom_bytes=b.rom_bytes,
                          ram_bytes=b.ram_bytes, stack_bytes=0, key_setup="", via="runtime API",
                          workload=workload, notes=list(notes)))
    return out


# --- block ciphers: the generated functions directly -------------------------------------------

def _block_records(unit, chip, elf) -> list[Record]:
    from aedsl.rom import rom_bytes, rom_items
    prog = Program(elf, chip)
    rom = rom_bytes(rom_items(prog.elf, unit, set(unit.entries)))
    ram = prog.elf.sizes().ram
    ks_e, enc_e, dec_e = (unit.entries[n] for n in ("key_schedule", "encrypt_block", "decrypt_block"))
    kp = ks_e.params[0]
    key = _data(unit.consts["key_bits"] // 8, 1)
    karg = Buffer(key[:kp.nbytes] if kp.kind == "wide" else key) if kp.kind != "word" else int.from_bytes(key, "little")
    rks = prog.call(ks_e.symbol, [karg, Buffer(ks_e.params[1].nbytes)])
    ks = rks.buffers[-1]
    nblock = unit.consts["block_bits"] // 8
    common = dict(spec=unit.spec_name, chip=chip.name, knobs=dict(unit.knobs), ad_len=0, rom_bytes=rom, ram_bytes=ram,
                  via="generated functions")
    out = [Record(op="key_schedule", msg_len=0, cycles=rks.cycles, cycles_per_byte=None,
                  stack_bytes=rks.stack_bytes, **common)]
    block = _data(nblock, 5)
    for e in (enc_e, dec_e):
        bp = e.params[1]
        barg = Buffer(block[:bp.nbytes]) if bp.kind == "wide" else int.from_bytes(block, "little")
        r = prog.call(e.symbol, [Buffer(ks), barg, Buffer(2 * (-(-e.results[0] // 16)))])
        out.append(Record(op=e.name, msg_len=nblock, cycles=r.cycles, cycles_per_byte=r.cycles / nblock,
                          stack_bytes=r.stack_bytes, **common))
    return out


# --- entry point ------------------------------------------------------------------------------

def compile_unit(spec, chip, knobs: dict | None):
    """Compile (the in-process cache of sim_engine) and label the unit with its spec's name."""
    from aedsl.engines.sim import compiled
    unit, elf = compiled(spec, chip.path or chip.name, knobs or {})
    unit.spec_name = Path(spec).stem
    return unit, elf


def bench_spec(spec, chip, knobs: dict | None = None, sizes=DEFAULT_SIZES, ad_len: int = 0,
               key_setup: str = "exclude", sweep: int | None = None, seed001: bool | None = None,
               max_steps: int = DEFAULT_MAX_STEPS) -> list[Record]:
    """Records for one spec variant on one chip (see the module docstring). `sweep`: also measure
    every `sweep` bytes from 0 to 256 (workload "sweep", key setup included). `seed001`: the
    256-byte message + 16-byte AD workload with key setup included (default: on ARM chips).
    `max_steps`: the instructions one measured call may take before it counts as hung."""
    chip = chips_mod.load(chip) if isinstance(chip, str) else chip
    unit, elf = compile_unit(spec, chip, knobs)
    from aedsl import aead_runtime as rt
    if unit.kind == "block":
        from aedsl.engines.sim import check_block_unit
        check_block_unit(unit, spec)
        return _with_energy(_block_records(unit, chip, elf), chip)
    if not rt.is_aead(unit):
        raise SpecError("neither a block cipher nor an AEAD scheme; nothing to benchmark", str(spec))
    recs = _aead_records(unit, chip, sizes, ad_len, key_setup, max_steps=max_steps)
    if seed001 is None:
        seed001 = chip.cpu in SEED001_CPUS
    if seed001:
        # when the asked-for workload already is seed 001's, its records are labelled, not repeated
        same = [r for r in recs if r.msg_len == SEED001_MSG and r.ad_len == SEED001_AD and r.key_setup == "included"]
        for r in same:
            r.workload = "seed001"
        if not same:
            recs += _aead_records(unit, chip, (str(SEED001_MSG),), SEED001_AD, "include", workload="seed001")
    if sweep:
        recs += _aead_records(unit, chip, tuple(str(n) for n in range(0, 257, sweep)), ad_len, "include",
                              workload="sweep")
    return _with_energy(recs, chip)


def rom_detail(spec, chip, knobs: dict | None = None):
    """(items, unattributed bytes) of the variant's ROM as the `ROM` column counts it
    (aedsl/rom.py): AEAD schemes linked with the runtime, block ciphers alone."""
    from aedsl import aead_runtime as rt
    from aedsl.rom import rom_items, unattributed
    chip = chips_mod.load(chip) if isinstance(chip, str) else chip
    unit, elf = compile_unit(spec, chip, knobs)
    if unit.kind == "block":
        img = Program(elf, chip).elf
        items = rom_items(img, unit, set(unit.entries))
    elif rt.is_aead(unit):
        b = AeadBench(unit, chip)
        img, items = b.program.elf, b.rom_items
    else:
        raise SpecError("neither a block cipher nor an AEAD scheme; nothing to benchmark", str(spec))
    return items, unattributed(img, items)


def _with_energy(recs: list[Record], chip) -> list[Record]:
    """Fill in the modelled energy of each record (aedsl.energy; nothing without [power] data):
    of the whole operation, and per byte from cycles/byte (for IPI, its weighted mean)."""
    from aedsl.energy import energy
    if chip.power is None:
        return recs
    for r in recs:
        r.energy_uj = energy(chip, r.cycles).uj
        if r.cycles_per_byte is not None:
            r.energy_nj_per_byte = energy(chip, r.cycles_per_byte).uj * 1e3
        r.notes.append(ENERGY_NOTE)
    return recs


def bench_function(spec, chip, knobs: dict | None, function: str, args: dict | None = None,
                   max_steps: int = DEFAULT_MAX_STEPS) -> list[Record]:
    """One record: function `function` of the spec, compiled alone (with its callees) and called
    once on random inputs; `args` gives scalar parameters by name (the others are random)."""
    from aedsl.driver import compile_spec
    from aedsl.engines.sim import build_elf
    chip = chips_mod.load(chip) if isinstance(chip, str) else chip
    unit = compile_spec(spec, chip, knobs or {}, entry=function)
    elf = build_elf(unit, chip, with_runtime=False)
    e = unit.entries[function]
    args = dict(args or {})
    unknown = sorted(set(args) - {p.name for p in e.params if p.kind == "word"})
    if unknown:
        raise SpecError(f"{function}: no scalar parameter {', '.join(unknown)} (its parameters: "
                        f"{', '.join(f'{p.name} ({p.kind})' for p in e.params)})", str(spec))
    rng = random.Random(6)
    argv = []
    for p in e.params:
        if p.kind == "word":
            argv.append(int(args[p.name]) if p.name in args else rng.getrandbits(p.width))
        elif p.kind in ("mem", "wide"):
            argv.append(Buffer(rng.randbytes(p.nbytes)))
        else:
            raise SpecError(f"{function}: parameter {p.name} is a byte string; measure it through its scheme",
                            str(spec))
    argv += [Buffer(2 * (-(-w // 16))) for w in e.results]
    prog = Program(elf, chip)
    r = prog.call(e.symbol, argv, max_steps=max_steps)
    others = {x.symbol for n, x in unit.entries.items() if n != function}
    rom = sum(s["rom"] for n, s in prog.elf.symbol_sizes().items() if n not in others)
    given = ", ".join(f"{k}={v}" for k, v in args.items())
    return [Record(spec=Path(spec).stem, chip=chip.name, knobs=dict(unit.knobs), op=function, ad_len=0, msg_len=0,
                   cycles=r.cycles, cycles_per_byte=None, rom_bytes=rom, ram_bytes=prog.elf.sizes().ram,
                   stack_bytes=r.stack_bytes, via="the generated function alone",
                   notes=[f"random inputs{'; ' + given if given else ''}"])]


def to_json(records: list[Record]) -> str:
    return json.dumps([r.as_dict() for r in records], indent=1)
