"""Delay-slot scheduling around an asynchronous accelerator (target-neutral).

An accelerator operation (`accel_start` ... `accel_result` in the IR) runs for `latency` cycles
after the instruction that starts it; reading its result earlier is an error on the hardware
(and a SimError in our simulators). The naive code starts, waits (polls BUSY) and reads. This
module moves independent work into that gap and removes the wait when the work provably covers
the latency. Three steps, each preserving the program's meaning:

1. **At selection** (`AccelSelection`, a mixin of a target's selector):
   - *Starts rise.* Inside an IR block, an `accel_start` with no result of an earlier operation
     still unread is moved up to just after the last op it depends on, together with the ops of
     its backward slice (its operands' definitions in the same block). The segment it moves
     through ends at any effect the slice could observe: another accelerator op, a region
     (`for`/`if`), a call, or (if the slice loads) any store. Only pure ops and loads
     cross each other, so every value is computed from the same inputs as before.
   - *Results sink.* `accel_result` emits nothing; its words are read (after a wait) when first
     used, when the next operation must start (the module holds one block), before a region is
     entered, or at the end of the function. Reading later is always allowed; the module keeps
     the result until the next start.
   - *The module's state is tracked*: the key it holds (a loaded key is identified by the memory
     element it was loaded from and the number of stores to that memory so far, so "unchanged"
     is proven from the dataflow) and the operation mode. A key or mode write is emitted only
     when it changes. A counted loop whose accelerator operations all use one key and mode gets
     them set once before the loop (the loop body cannot change them), so the body sets nothing.
2. **In machine IR, before register allocation** (`schedule_function`): a list scheduler over
   each basic block that holds an accelerator start or wait. Dependences: registers (RAW, WAR,
   WAW), the condition flags (an instruction that clobbers them keeps its order relative to every
   instruction of a live flags range), memory (stores stay ordered with loads and stores they may
   alias; accelerator registers form one ordered chain, apart from ordinary memory), and the
   block's label and terminator stay in place. Priorities: a start (`accel.go`) issues as soon as
   its data writes are done; while an operation is in flight and its latency not yet covered by
   scheduled cycles (the target's cost model), independent instructions go first (those the next
   start needs, then the rest in original order), and the wait (`accel.wait`) and the result reads
   come only when the latency is covered or nothing else is ready.
3. **After register allocation** (`finalize_waits`): for each wait, the minimum over all paths
   from its start to the first accelerator access after the wait of the summed instruction cycles
   (the start instruction excluded, that access included: every access happens at the end of its
   instruction, see the simulators' timing contract). If it is >= the latency the wait is
   deleted; otherwise the target expands it into a BUSY poll loop. Spill code only adds cycles and
   coalescing only removes copies, so the check runs on the final instructions.

With the knob `schedule=none` steps 1 (rising, sinking) and 2 are skipped and every wait becomes a
poll: start, poll, read, the baseline the delay-slot effect is measured against.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from aedsl.ir.nodes import Block, Memory, Op, Value

from .liveness import FLAGS, Cfg, block_liveness, defs_uses
from .mir import Imm, Inc, Ind, Lbl, Mem, MFunction, MInst, R, Frame

GO, WAIT = "accel.go", "accel.wait"
SCHEDULE_VALUES = ("none", "delay_slot")
_BARRIERS = ("for", "if", "call", "accel_start", "accel_result")
_STORES = ("store", "store_be", "store_le")
_LOADS = ("load", "load_be", "load_le")


# ------------------------------------------------------------------------------------------
# 1. selection time
# ------------------------------------------------------------------------------------------

@dataclass
class _Pending:
    """A started operation whose result has not been read yet."""
    op: Op
    ident: int
    results: list          # IR result values (one u128, or one per word after legalization)


@dataclass
class AccelConfig:
    """What the selector needs to know: `latency[kind]` in cycles (kinds: encrypt, decrypt,
    keygen, decrypt_generated_key) and whether delay-slot scheduling is on."""
    latency: dict
    delay_slot: bool = True
    stats: dict = field(default_factory=lambda: {"starts": 0, "key_loads": 0, "mode_sets": 0})


class AccelSelection:
    """Selector mixin: accelerator ops with rising starts, sinking results and module-state
    tracking (see the module docstring). The target selector provides the hooks
    `accel_set_mode(mode)`, `accel_write_key(limbs)`, `accel_write_block(limbs)` (its last write
    starts the operation), `accel_read(n_limbs) -> limbs`, `accel_key_limbs(membind, index)`
    (the limbs of a key element read from memory) and `accel_mode(kind) -> mode`; and sets
    `self.accel` to an `AccelConfig` (None: the chip has no accelerator)."""

    accel: AccelConfig | None = None

    def _accel_init(self):
        if not hasattr(self, "_acc_pending"):
            self._acc_pending: _Pending | None = None
            self._acc_state = (None, None)              # (key signature, mode)
            self._acc_origin: dict = {}                 # Value -> (memory binding, index, version)
            self._acc_version: dict = {}                # id(memory binding) -> stores so far
            self._acc_ids = 0

    # --- IR walk hooks ---------------------------------------------------------------------
    def select_op(self, op: Op) -> None:
        self._accel_init()
        code = op.opcode
        if code == "accel_start":
            return self._accel_start(op)
        if code == "accel_result":
            return self._accel_result(op)
        if code in _STORES:
            b = self.memory(op.args[0])
            self._acc_version[id(b)] = self._acc_version.get(id(b), 0) + 1
        super().select_op(op)
        if code == "load" and isinstance(op.args[0], Memory) and op.results:
            idx = self.const_of(self.get(op.args[1]))
            if idx is not None:
                b = self.memory(op.args[0])
                self._acc_origin[op.results[0]] = (b, idx, self._acc_version.get(id(b), 0))

    def get(self, v: Value) -> list:
        p = getattr(self, "_acc_pending", None)
        if p is not None and any(v is r for r in p.results):
            self.accel_flush()
        return super().get(v)

    def select_block(self, block: Block) -> list[list]:
        self._accel_init()
        if self.accel is None or not self.accel.delay_slot or not any(o.opcode == "accel_start" for o in block.ops):
            return super().select_block(block)
        ops = hoist_starts(block.ops)
        saved = block.ops
        try:
            block.ops = ops                     # the IR is not changed: the list is restored
            return super().select_block(block)
        finally:
            block.ops = saved

    def _flush_before_region(self, op: Op) -> None:
        """A region that neither touches the accelerator nor reads the pending result runs in
        the operation's delay slot (the wait comes after it; `finalize_waits` counts the
        region's shortest path); otherwise the result is read before the region is entered."""
        p = self._acc_pending
        if p is None:
            return
        if _contains_accel(op.regions) or not p.results or _reads_any(op.regions, p.results):
            self.accel_flush()

    def select_for(self, op: Op) -> None:
        self._accel_init()
        self._flush_before_region(op)
        need = self._loop_need(op) if self.accel is not None else None
        if need is None and _contains_accel(op.regions):
            self._acc_state = (None, None)      # unknown at the loop head (the back edge)
            super().select_for(op)
            self.accel_flush()
            self._acc_state = (None, None)
            return
        if need is not None:
            self._accel_ensure(*need)
        super().select_for(op)
        if need is not None:
            self.accel_flush()
            self._acc_state = (need[0][0], need[1])

    def select_if(self, op: Op) -> None:
        self._accel_init()
        self._flush_before_region(op)
        super().select_if(op)
        if _contains_accel(op.regions):
            self.accel_flush()
            self._acc_state = (None, None)      # the branches may leave different keys/modes

    def select_call(self, op: Op) -> None:
        self._accel_init()
        self.accel_flush()
        super().select_call(op)

    # --- the operations ----------------------------------------------------------------------
    def _key_sig(self, key_value: Value):
        o = self._acc_origin.get(key_value)
        if o is None:
            return None
        b, idx, ver = o
        if self._acc_version.get(id(b), 0) != ver:
            return None
        return (id(b), idx, ver), b

    def _split_args(self, op: Op) -> tuple[list, list, Value | None]:
        limbs = []
        for a in op.args:
            limbs.extend(self.get(a))
        n = len(limbs) // 2
        key_value = op.args[0] if len(op.args) == 2 else None
        return limbs[:n], limbs[n:], key_value

    def _accel_start(self, op: Op) -> None:
        if self.accel is None:
            raise self._accel_error(op)
        self.accel_flush()
        kind = op.attrs["op"].split(".")[-1]          # "encrypt" | "decrypt"
        key, block, key_value = self._split_args(op)
        sig = self._key_sig(key_value) if key_value is not None else None
        form = "cipher"
        if kind == "decrypt" and self._acc_state[0] is not None and self._acc_state[0][1] == "last" \
                and sig is not None and self._acc_state[0][0] == sig[0]:
            form = "last"                               # the loop set up the generated key
        mode = self.accel_mode("decrypt_generated_key" if form == "last" else kind)
        self._accel_ensure(((sig[0] if sig else None), form), mode, key_limbs=key)
        self._acc_ids += 1
        self.accel.stats["starts"] += 1
        self.accel_write_block(block)
        lat = self.accel.latency["decrypt_generated_key" if form == "last" else kind]
        self.emit(GO, Imm(self._acc_ids), Imm(lat))
        self._acc_pending = _Pending(op, self._acc_ids, [])
        self._acc_token = op.results[0]
        if not self.accel.delay_slot:
            pass                                         # result read at accel_result's place

    def _accel_result(self, op: Op) -> None:
        p = self._acc_pending
        if p is None or p.op.results[0] is not op.args[0]:
            raise self._accel_error(op, "accel_result without its accel_start just before it")
        p.results = list(op.results)
        if not self.accel.delay_slot:
            self.accel_flush()

    def accel_flush(self) -> None:
        """Read the pending result now (wait, then read the words)."""
        self._accel_init()
        p = self._acc_pending
        if p is None:
            return
        self._acc_pending = None
        self.emit(WAIT, Imm(p.ident))
        n = sum(-(-r.width // self.LIMB) for r in p.results) if p.results else 128 // self.LIMB
        limbs = self.accel_read(n)
        i = 0
        for r in p.results:
            k = -(-r.width // self.LIMB)
            self.put(r, limbs[i:i + k])
            i += k

    def _accel_ensure(self, key, mode, key_limbs=None) -> None:
        """Make the module hold `key` = (signature or None, "cipher" | "last") and `mode`."""
        sig, form = key
        cur_key, cur_mode = self._acc_state
        if sig is None or cur_key != (sig, form):
            if key_limbs is None:
                key_limbs = self._key_from_sig(sig)
            if form == "last":
                # generate the decryption key: OP=10, write the key, wait, then OP=11
                self.accel_set_mode(self.accel_mode("keygen"))
                self.accel_write_key(key_limbs)
                self._acc_ids += 1
                self.emit(GO, Imm(self._acc_ids), Imm(self.accel.latency["keygen"]))
                self.emit(WAIT, Imm(self._acc_ids))
                cur_mode = None
            else:
                if cur_mode == self.accel_mode("keygen"):
                    cur_mode = None
                self.accel_write_key(key_limbs)
            self.accel.stats["key_loads"] += 1
        if cur_mode != mode:
            self.accel_set_mode(mode)
            self.accel.stats["mode_sets"] += 1
        self._acc_state = ((sig, form) if sig is not None else None, mode)

    def _key_from_sig(self, sig):
        b, idx = self._sig_binding[sig]
        return self.accel_key_limbs(b, idx)

    def _loop_need(self, op: Op):
        """((key signature, form), mode) every accelerator op of the loop body uses, if they all
        use one key element not stored in the body and one kind; else None."""
        starts = list(_iter_ops(op.regions, "accel_start"))
        if not starts or any(True for _ in _iter_ops(op.regions, "call")):
            return None
        kinds = {s.attrs["op"].split(".")[-1] for s in starts}
        if len(kinds) != 1:
            return None
        defs = {}
        for o in _iter_ops(op.regions, None):
            for r in o.results:
                defs[r] = o
        origins: dict = {}
        for s in starts:
            if len(s.args) != 2:
                return None
            k = s.args[0]
            src = defs.get(k)
            if src is None:
                o = self._acc_origin.get(k)      # defined before the loop
                if o is None:
                    return None
                origins[(id(o[0]), o[1])] = o[0]
                continue
            if src.opcode != "load" or not isinstance(src.args[0], Memory):
                return None
            idx_op = defs.get(src.args[1])
            idx = self.const_of(self.get(src.args[1])) if idx_op is None else (
                idx_op.attrs.get("value") if idx_op.opcode == "const" else None)
            if idx is None:
                return None
            b = self.memory(src.args[0])
            origins[(id(b), idx)] = b
        if len(origins) != 1:
            return None
        (bid, idx), b = origins.popitem()
        for o in _iter_ops(op.regions, None):
            if o.opcode in _STORES and (not _safe_mem(self, o.args[0]) or id(self.memory(o.args[0])) == bid):
                return None
        sig = (bid, idx, self._acc_version.get(bid, 0))
        if not hasattr(self, "_sig_binding"):
            self._sig_binding = {}
        self._sig_binding[sig] = (b, idx)
        kind = kinds.pop()
        form = "last" if kind == "decrypt" else "cipher"
        mode = self.accel_mode("decrypt_generated_key" if form == "last" else kind)
        return (sig, form), mode

    def _accel_error(self, op, why="this chip has no accelerator (choose aes=soft)"):
        from .select_base import SelectError
        return SelectError(f"{self.mf.name}: {op.opcode}: {why}")


def _safe_mem(sel, m):
    try:
        sel.memory(m)
        return True
    except Exception:
        return False


def _iter_ops(regions, opcode):
    for blk in regions:
        for o in blk.ops:
            if opcode is None or o.opcode == opcode:
                yield o
            if o.regions:
                yield from _iter_ops(o.regions, opcode)


def _reads_any(regions, values) -> bool:
    ids = {id(v) for v in values}
    return any(id(a) in ids for o in _iter_ops(regions, None) for a in o.args)


def _contains_accel(regions) -> bool:
    return any(True for o in _iter_ops(regions, None) if o.opcode in ("accel_start", "accel_result", "call"))


def may_alias(a, b) -> bool:
    """Whether memories `a` and `b` may be the same bytes at run time. Tables (ROM) and a
    function's local arrays alias only themselves. A fixed-size array parameter (a key-setup
    state, round keys) never overlaps a `bytes` buffer (a message, AD, nonce: the runtime and
    the key-setup convention of docs/LANGUAGE.md give the state its own storage, only read by
    `encrypt_with`/`decrypt_with`); two `bytes` buffers, or two arrays, may overlap."""
    if a is b:
        return True
    if not isinstance(a, Memory) or not isinstance(b, Memory):
        return True
    if "table" in (a.kind, b.kind) or "local" in (a.kind, b.kind):
        return False
    return (a.length is None) == (b.length is None)


def hoist_starts(ops: list[Op]) -> list[Op]:
    """The block's ops with each `accel_start` (and its backward slice) moved up through the
    segment since the last barrier, when no earlier operation's result is pending at the
    segment's start (see the module docstring)."""
    ops = list(ops)
    i = 0
    while i < len(ops):
        if ops[i].opcode != "accel_start":
            i += 1
            continue
        s = i
        lo = i
        while lo > 0 and ops[lo - 1].opcode not in _BARRIERS:
            lo -= 1
        pending = lo > 0 and ops[lo - 1].opcode in ("accel_result", "accel_start")
        seg = ops[lo:s]
        need = set(v for v in ops[s].args if isinstance(v, Value))
        in_slice = [False] * len(seg)
        for k in range(len(seg) - 1, -1, -1):
            o = seg[k]
            if any(r in need for r in o.results):
                in_slice[k] = True
                need.update(a for a in o.args if isinstance(a, Value))
        loaded = {o.args[0] for o, f in zip(seg, in_slice) if f and o.opcode in _LOADS}
        if any(f and o.opcode in _STORES for o, f in zip(seg, in_slice)):
            i += 1
            continue
        # a store the slice's loads could observe ends the segment (two buffer parameters may
        # be the same memory at run time, e.g. in-place encryption)
        cut = 0
        for k, o in enumerate(seg):
            if o.opcode in _STORES and any(may_alias(m, o.args[0]) for m in loaded):
                cut = k + 1
        head, seg, in_slice = seg[:cut], seg[cut:], in_slice[cut:]
        if pending:
            # The previous operation's result is still unread: the start reads it first (the
            # selector flushes before every start), so all work that does not need that result
            # goes first, in the previous operation's delay slot (CCM decryption: the mask of
            # the partial block, from the length alone), then the start's slice that needs it,
            # the start, and the rest of the work that needs it (storing M = C ^ U) behind the
            # start, in this operation's delay slot. Effects keep their order: a store of the
            # first group would move ahead of the slice, so then nothing moves.
            prev = ops[lo - 1]
            prev_results = set(prev.results) if prev.opcode == "accel_result" else set()
            dep = set(prev_results)
            waits = [False] * len(seg)
            for k, o in enumerate(seg):
                if any(isinstance(a, Value) and a in dep for a in o.args):
                    waits[k] = True
                    dep.update(o.results)
            early = [o for o, w in zip(seg, waits) if not w]
            if not prev_results or any(o.opcode in _STORES for o in early):
                i += 1
                continue
            moved = early + [o for o, f, w in zip(seg, in_slice, waits) if f and w] + [ops[s]] + \
                [o for o, f, w in zip(seg, in_slice, waits) if not f and w]
        else:
            moved = [o for o, f in zip(seg, in_slice) if f] + [ops[s]] + [o for o, f in zip(seg, in_slice) if not f]
        ops[lo:s + 1] = head + moved
        i = s + 1
    return ops


# ------------------------------------------------------------------------------------------
# 2. list scheduling of machine IR (before register allocation)
# ------------------------------------------------------------------------------------------

@dataclass
class AccelPorts:
    """The target's view of the accelerator for the machine-IR steps: `is_io(operand)` tells an
    accelerator register operand; `cycles(inst)` the cost model; `expand_wait(mf, inst)` the
    poll loop replacing an uncovered wait."""
    is_io: object
    cycles: object
    expand_wait: object


def _mem_class(op, ports):
    if ports.is_io(op):
        return ("io",)
    if isinstance(op, Mem):
        if op.base is None:
            return ("abs", op.disp)
        if isinstance(op.disp, Frame):
            return ("frame", op.disp.kind, op.disp.key)
        return ("ptr", op.base)
    if isinstance(op, (Ind, Inc)):
        return ("ptr", op.reg)
    return None


def _may_alias(a, b) -> bool:
    if a[0] == "io" or b[0] == "io":
        return a[0] == b[0]
    if a[0] == "abs" or b[0] == "abs":
        # absolute symbols are the read-only tables; only the same symbol may alias
        return a == b
    if a[0] == "frame" and b[0] == "frame":
        return a[1:] == b[1:]
    if a[0] == "frame" or b[0] == "frame":
        return False                    # pointers from the caller never point into our frame
    return True


def _mem_effects(inst, target, ports):
    reads, writes = [], []
    if inst.mn in ("label", "comment"):
        return reads, writes
    d = target.desc(inst)
    for i, op in enumerate(inst.ops):
        c = _mem_class(op, ports)
        if c is None:
            continue
        if i in d.writes and not isinstance(op, R):
            writes.append(c)
        if i in d.reads:
            reads.append(c)
    if inst.mn in (GO, WAIT):
        reads.append(("io",))
        writes.append(("io",))
    return reads, writes


def schedule_function(mf: MFunction, target, ports: AccelPorts) -> int:
    """List-schedule every basic block holding an accelerator start or wait; returns how many
    blocks were rescheduled."""
    insts = mf.insts
    if not any(i.mn in (GO, WAIT) for i in insts):
        return 0
    cfg = Cfg(insts, target)
    du_f = [defs_uses(i, target, flags=True) for i in insts]
    flags_out = block_liveness(cfg, du_f, lambda r: r == FLAGS)
    out: list[MInst] = []
    n = 0
    for bi, (a, b) in enumerate(cfg.blocks):
        blk = insts[a:b]
        if any(i.mn in (GO, WAIT) for i in blk):
            blk = _schedule_block(blk, du_f[a:b], FLAGS in flags_out[bi], target, ports)
            n += 1
        out.extend(blk)
    mf.insts = out
    return n


def _schedule_block(blk, du, flags_live_out, target, ports):
    n = len(blk)
    head = 1 if blk[0].mn == "label" else 0
    last = blk[-1]
    tail = 1 if last.mn not in ("label", "comment") and target.desc(last).branch else 0
    body = list(range(head, n - tail))
    preds: list[set] = [set() for _ in range(n)]

    def edge(i, j):
        if i != j:
            preds[j].add(i)

    # registers
    last_def: dict = {}
    uses_since: dict = {}
    for i in body:
        d, u = du[i]
        for r in u:
            if r == FLAGS:
                continue
            if r in last_def:
                edge(last_def[r], i)
            uses_since.setdefault(r, []).append(i)
        for r in d:
            if r == FLAGS:
                continue
            if r in last_def:
                edge(last_def[r], i)
            for k in uses_since.get(r, []):
                edge(k, i)
            last_def[r] = i
            uses_since[r] = []
    # flags: live ranges (def .. last reader) keep their order with every clobber
    flag_live = [False] * n
    live = flags_live_out
    for i in range(n - 1, -1, -1):
        d, u = du[i]
        if FLAGS in d:
            flag_live[i] = live
            live = False
        if FLAGS in u:
            flag_live[i] = True
            live = True
    clobbers = [i for i in body if FLAGS in du[i][0]]
    ranged = [i for i in body if flag_live[i] or FLAGS in du[i][1]]
    for i in ranged:
        for c in clobbers:
            if c < i:
                edge(c, i)
            elif c > i:
                edge(i, c)
    # memory
    eff = {i: _mem_effects(blk[i], target, ports) for i in body}
    for ii, i in enumerate(body):
        ri, wi = eff[i]
        for j in body[:ii]:
            rj, wj = eff[j]
            if any(_may_alias(x, y) for x in wi for y in rj + wj) or any(_may_alias(x, y) for x in ri for y in wj):
                edge(j, i)
    # a start follows its trigger write immediately; it is the successor of the last io write
    succs: list[set] = [set() for _ in range(n)]
    for j in body:
        for i in preds[j]:
            succs[i].add(j)
    # ancestors of each start (what the next start needs)
    go_anc: set = set()
    for g in body:
        if blk[g].mn == GO:
            stack = [g]
            while stack:
                x = stack.pop()
                for p in preds[x]:
                    if p not in go_anc:
                        go_anc.add(p)
                        stack.append(p)
    remaining = {i: len(preds[i]) for i in body}
    ready = {i for i in body if remaining[i] == 0}
    order: list[int] = []
    inflight, elapsed = None, 0
    while ready:
        pick = None
        gos = [i for i in ready if blk[i].mn == GO]
        if gos:
            pick = min(gos)
        elif inflight is not None and elapsed < inflight:
            fill = [i for i in ready if blk[i].mn != WAIT and not _is_io_inst(blk[i], ports)]
            if fill:
                pick = min(fill, key=lambda i: (i not in go_anc, i))
        if pick is None:
            urgent = [i for i in ready if i in go_anc or blk[i].mn == WAIT or _is_io_inst(blk[i], ports)]
            pick = min(urgent) if urgent else min(ready)
        ready.discard(pick)
        order.append(pick)
        inst = blk[pick]
        if inst.mn == GO:
            inflight, elapsed = inst.ops[1].value, 0
        elif inst.mn == WAIT:
            inflight = None
        else:
            elapsed += ports.cycles(inst)
        for s in succs[pick]:
            remaining[s] -= 1
            if remaining[s] == 0:
                ready.add(s)
    if len(order) != len(body):
        raise RuntimeError("scheduler: dependence cycle")
    return blk[:head] + [blk[i] for i in order] + blk[n - tail:]


def _is_io_inst(inst, ports) -> bool:
    return any(ports.is_io(o) for o in inst.ops)


# ------------------------------------------------------------------------------------------
# 3. waits: removed when covered, polls otherwise (after register allocation)
# ------------------------------------------------------------------------------------------

def covered_cycles(insts: list[MInst], go_index: int, wait_index: int, target, ports) -> int | None:
    """Minimum over all paths from the start (`go_index`) to the first accelerator access after
    the wait of the summed cycles (start excluded, that access included); None if unreachable."""
    import heapq
    labels = {inst.ops[0].name: k for k, inst in enumerate(insts) if inst.mn == "label"}
    # the first io access at or after the wait (same block: the scheduler keeps reads after it)
    end = wait_index
    while end < len(insts) and not _is_io_inst(insts[end], ports):
        end += 1
    if end == len(insts):
        return None
    best = {go_index + 1: 0}
    heap = [(0, go_index + 1)]
    while heap:
        c, k = heapq.heappop(heap)
        if c > best.get(k, 1 << 60) or k >= len(insts):
            continue
        inst = insts[k]
        if k > wait_index and k == end:
            return c + ports.cycles(inst)
        if inst.mn == GO:
            continue
        cost = 0 if inst.mn in ("label", "comment", WAIT) else ports.cycles(inst)
        nxt = []
        kind = target.desc(inst).branch if inst.mn not in ("label", "comment") else None
        if kind in ("jump", "cond"):
            nxt.append(labels[next(o for o in inst.ops if isinstance(o, Lbl)).name])
        if kind not in ("jump", "ret"):
            nxt.append(k + 1)
        for m in nxt:
            if c + cost < best.get(m, 1 << 60):
                best[m] = c + cost
                heapq.heappush(heap, (c + cost, m))
    return None


def finalize_waits(mf_name: str, insts: list[MInst], target, ports: AccelPorts, make_label) -> tuple[list[MInst], list[dict]]:
    """Remove covered waits, expand the others into polls; returns (instructions, report) where
    the report has one dict per wait: id, latency, covered (cycles or None), poll (bool)."""
    if not any(i.mn in (GO, WAIT) for i in insts):
        return insts, []
    gos = {inst.ops[0].value: k for k, inst in enumerate(insts) if inst.mn == GO}
    report, decisions = [], {}
    for k, inst in enumerate(insts):
        if inst.mn != WAIT:
            continue
        ident = inst.ops[0].value
        g = gos[ident]
        lat = insts[g].ops[1].value
        cov = covered_cycles(insts, g, k, target, ports)
        poll = cov is None or cov < lat
        decisions[k] = poll
        report.append({"function": mf_name, "id": ident, "latency": lat, "covered": cov, "poll": poll})
    out: list[MInst] = []
    for k, inst in enumerate(insts):
        if inst.mn == GO:
            continue
        if inst.mn == WAIT:
            if decisions[k]:
                out.extend(ports.expand_wait(make_label, inst))
            continue
        out.append(inst)
    return out, report
