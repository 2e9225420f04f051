"""Secret-taint analysis of the machine IR the targets selected, scheduled and allocated (each
function as the last MIR pass left it: `driver.compile_spec(keep=True)`, `Compiled.mir`).

A forward data-flow analysis over each function's control-flow graph, iterated to a fixed point.
The abstract value of a register, of the flags and of a frame word (spill slots, outgoing and
incoming stack arguments: tracked per program point, since slots are reused) is a pair
(secret, the memory regions it may point into). A function's frame areas (scratch buffers reused
for public and secret data: a byte buffer's partial block, a call's wide arguments and results)
are also tracked per program point, a word at a time where the offset is known: a frame-area
operand, or a register holding the area's address plus a known offset (set by an address
instruction, kept through the target's plain copies) with an immediate displacement. A store of
a whole word (`InstrDesc.width`) there replaces the word; a narrower one joins into it; a store
at an unknown offset (an index register, a pointer that arithmetic moved) joins into what every
word of the area may hold, which every read of the area joins. Other memory regions — a
parameter's buffer, a table, the chip's peripherals, and a caller's frame area a callee stores
into (a word at a time where the offset is known; what the caller published at its calls
besides) — keep one value for their contents, joined over every store (the analysis is re-run
until no region changes). At entry the argument words hold what `roles` says of the exported
function's parameters (pointers into their regions, byte-buffer lengths public); a
subroutine call is analysed with the caller's argument words, so its loads and stores act on the
caller's regions.

What each instruction reads, writes, loads and stores comes from the target's instruction table
(`codegen.target.InstrDesc`: operand roles, `memory`, `addr`, `unit`); nothing here knows a
mnemonic. Reported (`findings.Finding`, level "machine", at the instruction's spec line):
- a conditional branch whose flags depend on a secret: "loop" if it jumps backwards, else
  "branch" (a shift by a secret amount that the target makes a loop, a software division, a
  select the target made a branch);
- an instruction of a functional unit the chip file declares operand-dependent
  (`[multiplier] data_dependent_latency = true`) with a secret operand: "variable-time";
- a load or store whose address depends on a secret: "index", naming the region;
- a store through a register that points nowhere the analysis knows: "untracked" (it could
  overwrite anything, so the analysis refuses rather than guess; no generated code has one).

Accelerator waits are pseudo-instructions at this stage (the BUSY poll that may replace one at
emission reads a status bit, not a secret). Reads the MIR; changes nothing.
"""
from __future__ import annotations

import heapq

from aedsl.codegen.interface import KeptFunction
from aedsl.codegen.mir import Frame, Imm, Inc, Ind, Lbl, Mem, R

from .findings import Finding
from .roles import is_secret

PUBLIC = (False, frozenset())
SECRET = (True, frozenset())
UNKNOWN = ("unknown",)
IO = ("io",)
FRAME_WORDS = ("slot", "out", "arg")          # frame words tracked per program point


def _one_register(ops, desc) -> bool:
    """The instruction reads one register at two or more of its operand positions and nothing
    else (`subc r5, r5`, `eors r1, r1`)."""
    read = [ops[j] for j in desc.reads if j < len(ops) and j not in desc.addr]
    return len(read) >= 2 and all(isinstance(o, R) for o in read) and len({o.reg for o in read}) == 1


def _join(a, b):
    if a is b or a == b:
        return a
    return (a[0] or b[0], a[1] | b[1])


def _numeric(disp) -> bool:
    if isinstance(disp, int):
        return True
    try:
        int(str(disp), 0)
        return True
    except ValueError:
        return False


class State:
    """Registers, flags and the tracked frame words at one program point."""
    __slots__ = ("regs", "flags", "frame")

    def __init__(self, regs: dict, flags: bool, frame: dict):
        self.regs, self.flags, self.frame = regs, flags, frame

    def copy(self) -> "State":
        return State(dict(self.regs), self.flags, dict(self.frame))

    def join(self, other: "State") -> bool:
        """Join `other` into this state; True if this state grew."""
        if self.regs == other.regs and self.frame == other.frame and (self.flags or not other.flags):
            return False
        changed = False
        for table, src in ((self.regs, other.regs), (self.frame, other.frame)):
            for k, v in src.items():
                old = table.get(k)
                new = v if old is None else _join(old, v)
                if new != old:
                    table[k] = new
                    changed = True
        if other.flags and not self.flags:
            self.flags = True
            changed = True
        return changed


class MirTaint:
    def __init__(self, functions: list[KeptFunction], chip):
        self.functions = {k.mf.name: k for k in functions}
        self.chip = chip
        self.memory: dict = {}              # region -> (secret, points) of its contents
        self.findings: set[Finding] = set()
        self.version = 0
        self.memo: set = set()
        self.variable_units = {"multiplier"} if chip.multiplier.get("data_dependent_latency") else set()

    # --- driver --------------------------------------------------------------------------------
    def run(self) -> list[Finding]:
        entries = [k for k in self.functions.values() if k.entry is not None]
        while True:
            before = dict(self.memory)
            self.findings, self.memo = set(), set()
            for k in entries:
                self.function(k, self.entry_words(k))
            if self.memory == before:
                return sorted(self.findings)

    def entry_words(self, k: KeptFunction) -> list:
        """The abstract incoming argument words of an exported function (the ABI's word order:
        codegen.calls, docs/BACKENDS.md)."""
        words = []
        for p in k.entry.params:
            region = ("param", p.name)
            if region not in self.memory:
                self.memory[region] = (is_secret(p.name), frozenset())
            if p.kind == "word":
                words.append((is_secret(p.name), frozenset()))
            else:
                words.append((False, frozenset({region})))
                if p.kind == "bytes":
                    words.append(PUBLIC)                  # the length
        for j in range(len(k.entry.results)):
            region = ("result", j)
            self.memory.setdefault(region, PUBLIC)
            words.append((False, frozenset({region})))
        return words

    # --- one function ----------------------------------------------------------------------------
    def function(self, k: KeptFunction, words: list) -> None:
        key = (k.mf.name, tuple(words), self.version)
        if key in self.memo:
            return
        self.memo.add(key)
        mf, machine = k.mf, k.machine
        insts = mf.insts
        labels = {i.ops[0].name: n for n, i in enumerate(insts) if i.mn == "label"}
        start = State({}, False, {})
        for src, w in zip(mf.incoming, words):
            if isinstance(src, R):
                start.regs[src.reg] = w
            else:
                start.frame[("arg", src.disp.key)] = w
        states: list[State | None] = [None] * (len(insts) + 1)
        states[0] = start
        work, queued = [0], {0}             # lowest index first: straight code once, loops to their fixed point
        while work:
            n = heapq.heappop(work)
            queued.discard(n)
            inst = insts[n]
            s = states[n].copy()
            desc = machine.desc(inst)
            self.transfer(k, n, inst, desc, s, labels)
            succ = []
            if desc.branch == "jump":
                succ = [labels[inst.ops[0].name]]
            elif desc.branch == "cond":
                succ = [n + 1, labels[inst.ops[0].name]]
            elif desc.branch != "ret":
                succ = [n + 1]
            for m in succ:
                if m >= len(insts):
                    continue
                if states[m] is None:
                    states[m] = s.copy() if len(succ) > 1 else s
                elif not states[m].join(s):
                    continue
                if m not in queued:
                    queued.add(m)
                    heapq.heappush(work, m)

    def find(self, kind: str, k: KeptFunction, inst, detail: str, memory: str = "") -> None:
        origin = f" (code selected for `{inst.origin}`)" if inst.origin else ""
        self.findings.add(Finding(kind, tuple(inst.origin_loc or inst.loc or ()), "machine", k.mf.name,
                                  f"{detail}{origin}: `{inst.mn}`", memory))

    # --- operands --------------------------------------------------------------------------------
    def regions(self, k: KeptFunction, op, s: State) -> tuple[frozenset, bool, object]:
        """(regions a memory operand may access, whether its address is secret, the frame word
        it names or None)."""
        if isinstance(op, (Ind, Inc)):
            base = s.regs.get(op.reg, PUBLIC)
            return (base[1] or frozenset({UNKNOWN})), base[0], None
        disp = op.disp
        if isinstance(disp, Frame):
            if disp.kind in FRAME_WORDS:
                return frozenset(), False, (disp.kind, disp.key)
            return frozenset({("local", k.mf.name, disp.key, disp.extra)}), False, None
        base = s.regs.get(op.base, PUBLIC) if op.base is not None else PUBLIC
        if op.base is None:
            return frozenset({IO if _numeric(disp) else ("table", str(disp))}), False, None
        out = {r[:3] + (r[3] + disp,) if len(r) == 4 and isinstance(disp, int) else _area(r) for r in base[1]}
        if isinstance(disp, str) and not _numeric(disp):
            out.add(("table", disp))           # sym(Rn): the register is an index into `sym`
        return frozenset(out or {UNKNOWN}), base[0], None

    def load(self, k: KeptFunction, inst, op, s: State, extra_addr=(False, frozenset())):
        regions, secret_addr, word = self.regions(k, op, s)
        if word is not None:
            return s.frame.get(word, PUBLIC)
        regions = _areas(regions | extra_addr[1]) if extra_addr[1] else regions
        secret_addr = secret_addr or extra_addr[0]
        if secret_addr:
            self.find("index", k, inst, "load at a secret-dependent address from " + _names(regions),
                      _names(regions))
        v = (secret_addr, frozenset())
        for r in regions:
            v = _join(v, self.read_region(k, s, r))
        return v

    def store(self, k: KeptFunction, inst, op, value, s: State, extra_addr=(False, frozenset())) -> None:
        regions, secret_addr, word = self.regions(k, op, s)
        if word is not None:
            s.frame[word] = value                  # one word at a known place: a strong update
            return
        regions = _areas(regions | extra_addr[1]) if extra_addr[1] else regions
        secret_addr = secret_addr or extra_addr[0]
        if secret_addr:
            self.find("index", k, inst, "store at a secret-dependent address into " + _names(regions),
                      _names(regions))
        value = (value[0] or secret_addr, value[1])
        width = k.machine.desc(inst).width
        for r in regions:
            self.write_region(k, s, r, value, width)
        if UNKNOWN in regions:
            # what it overwrites is unknown, so every later load could be wrong: fail closed
            self.find("untracked", k, inst, "a store through a pointer the analysis cannot follow")

    def read_region(self, k: KeptFunction, s: State, r):
        """The contents of region `r`. A frame area of the function being analysed: per program
        point, the word(s) at a known offset or every word, joined with what stores at unknown
        offsets and callees (through the pointers it passed) put there. A caller's frame area
        (the function is a callee): what the caller published at its calls joined with what
        callees stored. Any other region as a whole."""
        if r[0] != "local":
            return self.memory.get(r, SECRET if r == UNKNOWN else PUBLIC)
        area = _area(r)
        words = None if len(r) == 3 else _words(r[3])
        v = self.memory.get(area, PUBLIC)                    # callees' stores at unknown offsets
        for key, w in self.memory.items():                   # callees' stores at known offsets
            if len(key) == 4 and key[:3] == area and (words is None or key[3] in words):
                v = _join(v, w)
        if r[1] != k.mf.name:
            return _join(v, self.memory.get(("pub",) + area[1:], PUBLIC))
        v = _join(v, s.frame.get(area, PUBLIC))              # this function's unknown offsets
        for key, w in s.frame.items():
            if key[0] == "area" and key[1] == area[2] and (words is None or key[2] in words):
                v = _join(v, w)
        return v

    def write_region(self, k: KeptFunction, s: State, r, value, width: int = 0) -> None:
        """A store into region `r`. In a frame area of the function being analysed, per program
        point: a whole word (`width` bytes = AREA_WORD) at a known aligned offset replaces that
        word; another store at a known offset joins into the word(s) it may reach; one at an
        unknown offset into what every word may hold. Elsewhere a weak update of one value per
        region (a callee's store into its caller's area: per word where the offset is known)."""
        if r[0] == "local" and r[1] == k.mf.name:
            if len(r) == 3:
                s.frame[r] = _join(s.frame.get(r, PUBLIC), value)
            elif width == AREA_WORD and r[3] % AREA_WORD == 0:
                s.frame[("area", r[2], r[3] // AREA_WORD)] = value
            else:
                for w in _words(r[3]):
                    key = ("area", r[2], w)
                    s.frame[key] = _join(s.frame.get(key, PUBLIC), value)
            return
        for key in ([r[:3] + (w,) for w in _words(r[3])] if r[0] == "local" and len(r) == 4 else [r]):
            old = self.memory.get(key, PUBLIC)
            new = _join(old, value)
            if new != old:
                self.memory[key] = new
                self.version += 1

    def value(self, k: KeptFunction, inst, op, s: State):
        if isinstance(op, R):
            return s.regs.get(op.reg, PUBLIC)
        if isinstance(op, Imm):
            v = op.value
            return (False, frozenset({("table", v)})) if isinstance(v, str) and not _numeric(v) else PUBLIC
        if isinstance(op, Lbl):
            return (False, frozenset({("table", op.name)}))
        if isinstance(op, (Mem, Ind, Inc)):
            return self.load(k, inst, op, s)
        return PUBLIC

    # --- one instruction --------------------------------------------------------------------------
    def transfer(self, k: KeptFunction, n: int, inst, desc, s: State, labels: dict) -> None:
        if desc.pseudo and not desc.reads and not desc.writes:
            if desc.flags_out:
                s.flags = False
            return
        ops = inst.ops
        for op in ops:
            if isinstance(op, Inc) and any(len(r) == 4 for r in s.regs.get(op.reg, PUBLIC)[1]):
                # an auto-increment moves the pointer: from here on its offset is not known
                base = s.regs[op.reg]
                s.regs[op.reg] = (base[0], _areas(base[1]))
        if desc.memory == "call":
            self.call(k, inst, desc, s)
            return
        if desc.memory == "address":
            src = next(o for j, o in enumerate(ops) if j not in desc.writes)
            if isinstance(src, (Mem, Ind, Inc)):
                regions, secret, word = self.regions(k, src, s)
                v = (secret, regions if word is None else frozenset({("frame", k.mf.name)}))
            else:
                v = self.value(k, inst, src, s)
            for j in desc.writes:
                s.regs[ops[j].reg] = v
            if desc.flags_out:
                s.flags = v[0]
            return
        addr = PUBLIC
        for j in desc.addr:
            addr = _join(addr, s.regs.get(ops[j].reg, PUBLIC))
        v = (s.flags, frozenset()) if desc.flags_in else PUBLIC
        store_ops = []
        for j in desc.reads:
            if j >= len(ops) or j in desc.addr:
                continue
            op = ops[j]
            if desc.memory == "store" and isinstance(op, (Mem, Ind, Inc)):
                store_ops.append(op)
                continue
            v = _join(v, self.value(k, inst, op, s))
        if inst.public:
            # the selector's construction makes the result and flags data-independent
            # (codegen.mir.MInst.public: a loop's marker-bit exit test)
            v = PUBLIC
        elif desc.cancels and _one_register(ops, desc):
            # x - x, x ^ x: zero whatever x holds (with a borrow, 0 or -1 by the carry alone:
            # MSP430 `subc rD, rD`, ARMv6-M `sbcs rD, rD`, the masks of carry_masks)
            v = (s.flags, frozenset()) if desc.flags_in else PUBLIC
        if desc.memory == "load" and desc.addr:
            # rt, [rn, rm]: the region and its secrecy come from the address registers (the
            # offset an index adds is not known: the whole of a frame area)
            regions = _areas(addr[1]) or frozenset({UNKNOWN})
            if addr[0]:
                self.find("index", k, inst, "load at a secret-dependent address from " + _names(regions),
                          _names(regions))
            loaded = (addr[0], frozenset())
            for r in regions:
                loaded = _join(loaded, self.read_region(k, s, r))
            v = loaded if not desc.flags_in else _join(loaded, (s.flags, frozenset()))
        if desc.memory == "store" and desc.addr:
            regions = _areas(addr[1]) or frozenset({UNKNOWN})
            if UNKNOWN in regions:
                self.find("untracked", k, inst, "a store through a pointer the analysis cannot follow")
            if addr[0]:
                self.find("index", k, inst, "store at a secret-dependent address into " + _names(regions),
                          _names(regions))
            for r in regions:
                self.write_region(k, s, r, (v[0] or addr[0], v[1]))
        for op in store_ops:
            self.store(k, inst, op, v, s)
        unit = k.machine.unit(inst)
        if unit and unit in self.variable_units and v[0]:
            self.find("variable-time", k, inst, f"a secret operand of the {unit}, whose latency the chip file "
                      f"{self.chip.name} declares operand-dependent")
        if desc.branch == "cond" and s.flags:
            if labels[inst.ops[0].name] < n:
                self.find("loop", k, inst, "a loop exit depends on a secret")
            else:
                self.find("branch", k, inst, "a conditional branch depends on a secret")
        if any(len(r) == 4 for r in v[1]) and not (inst.mn == k.machine.move(R(0), R(1)).mn and len(ops) == 2):
            v = (v[0], _areas(v[1]))    # a frame address moved by arithmetic: offset unknown
        for j in desc.writes:
            if j >= len(ops):
                continue
            op = ops[j]
            if j in desc.addr and desc.memory == "load":
                s.regs[op.reg] = (addr[0], _areas(addr[1]))     # a written-back base: the same regions
            elif isinstance(op, R):
                s.regs[op.reg] = v
            elif isinstance(op, (Mem, Ind, Inc)):
                self.store(k, inst, op, v, s)
        if desc.flags_out:
            s.flags = v[0]

    def call(self, k: KeptFunction, inst, desc, s: State) -> None:
        callee = self.functions.get(inst.ops[0].name)
        if callee is None:
            raise KeyError(f"{k.mf.name}: call of {inst.ops[0].name}, which the unit does not hold")
        words = []
        for src in callee.mf.incoming:
            if isinstance(src, R):
                words.append(s.regs.get(src.reg, PUBLIC))
            else:
                words.append(s.frame.get(("out", src.disp.key), PUBLIC))
        # the callee reaches the caller's frame areas only through the pointers it is passed
        # (argument and result areas), where it sees the regions' whole-run values: publish
        # those areas' contents at this point
        for region in sorted({_area(r) for w in words for r in w[1]}, key=str):
            if region[0] == "local" and region[1] == k.mf.name:
                pub = ("pub",) + region[1:]
                old = self.memory.get(pub, PUBLIC)
                new = _join(old, self.read_region(k, s, region))
                if new != old:
                    self.memory[pub] = new
                    self.version += 1
        self.function(callee, words)
        for j in desc.writes:
            if j < len(inst.ops) and isinstance(inst.ops[j], R):
                s.regs[inst.ops[j].reg] = SECRET      # clobbered: whatever the callee left there
        s.flags = True


AREA_WORD = 4          # the granule frame areas are tracked in (bytes)


def _area(r):
    """A frame-area region at a known offset ("local", function, area, offset) as the whole
    area ("local", function, area); any other region as it is."""
    return r[:3] if r[0] == "local" and len(r) == 4 else r


def _areas(regions) -> frozenset:
    """`regions` with every frame area at a known offset as the whole area."""
    return frozenset(_area(r) for r in regions)


def _words(offset: int) -> range:
    """The granules an access of up to AREA_WORD bytes at `offset` may touch."""
    return range(offset // AREA_WORD, (offset + AREA_WORD - 1) // AREA_WORD + 1)


def _names(regions) -> str:
    out = []
    for r in sorted(regions, key=str):
        if r[0] == "table":
            out.append(f"table {r[1]}")
        elif r[0] == "param":
            out.append(f"parameter {r[1]}")
        elif r[0] == "local":
            out.append(f"local {r[2]}")
        elif r[0] == "result":
            out.append(f"result {r[1]}")
        elif r[0] == "io":
            out.append("a peripheral register")
        else:
            out.append("memory of unknown place")
    return ", ".join(out)


def analyse(functions: list[KeptFunction], chip) -> list[Finding]:
    """The findings of the machine-code taint analysis of a unit's functions on `chip`."""
    return MirTaint(functions, chip).run()
