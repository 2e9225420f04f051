"""Accelerator operations at instruction selection (step 1 of the package docstring).

`AccelSelection` is a mixin of a target's selector: starts rise (through `hoist.hoist_starts`),
results sink to their first use, and the module's key and mode are tracked so that they are
written only when they change (a counted loop with one key and mode sets them before the loop).
It preserves the program's meaning: only pure ops and loads move, and a result is read before
anything that could observe the module.

Chaining through a XOR-in register (a module with `AccelConfig.xor_in`, e.g. the AES256 module's
AESAXDIN): the module keeps the last operation's output as its state, and a block written to the
XOR-in register is XORed into that state before the operation starts. So `E(y ^ m)`, where `y` is
known to be the module's state (the previous operation's result, with the same key and mode and
no other accelerator access in between), is started by writing `m` there: the XOR is not
computed and `y` is not read unless something else uses it. `y` is known to be the state inside
a block after its operation, and at the head of a loop body for a loop-carried value whose
initial value is the state before the loop and whose next value is the body's last result (the
CBC-MAC loops of CCM and CMAC). The XOR op is selected late (at its start) so that the choice can
be made there; where the state is not provably `y`, it is selected then as usual.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from aedsl.ir.nodes import Block, Memory, Op, Value

from ..mir import Imm, Lbl
from ..select_base import SelectError
from .hoist import STORES, hoist_starts
from .ports import GO, WAIT


@dataclass
class _Pending:
    """A started operation whose result has not been read yet."""
    op: Op
    ident: int
    results: list          # IR result values (one u128, or one per word after legalization)


def op_parts(op: Op) -> tuple[int, str]:
    """(key bits, kind) of an accelerator op: "aes256.decrypt" -> (256, "decrypt")."""
    family, _, kind = op.attrs["op"].partition(".")
    digits = "".join(ch for ch in family if ch.isdigit())
    return (int(digits) if digits else 128), kind


@dataclass
class AccelConfig:
    """What the selector needs to know: `latency[kind]` in cycles (kinds: encrypt, decrypt,
    keygen, decrypt_generated_key) for a 128-bit key, `latency_by_key[bits][kind]` for every key
    length the module has, and whether delay-slot scheduling is on. `mode_before_key`: the mode
    register also holds the key length and changing it clears the key, so a mode that changes is
    written before the key (the AES256 module); otherwise the key goes first."""
    latency: dict
    delay_slot: bool = True
    latency_by_key: dict = field(default_factory=dict)
    mode_before_key: bool = False
    xor_in: bool = False        # chain E(state ^ m) through the module's XOR-in register
    stats: dict = field(default_factory=lambda: {"starts": 0, "key_loads": 0, "mode_sets": 0, "chained": 0})


class AccelSelection:
    """Selector mixin: accelerator ops with rising starts, sinking results and module-state
    tracking (see the module docstring). The target selector provides the hooks
    `accel_set_mode(mode)`, `accel_write_key(limbs)`, `accel_write_block(limbs)` (its last write
    starts the operation), `accel_read(n_limbs) -> limbs`, `accel_key_limbs(membind, index)`
    (the limbs of a key element read from memory) and `accel_mode(kind, key_bits) -> mode`, and
    with `AccelConfig.xor_in` `accel_write_block_xor(limbs)` (the XOR-in register; its last
    write starts the operation); and sets `self.accel` to an `AccelConfig` (None: the chip has
    no accelerator)."""

    accel: AccelConfig | None = None

    def _accel_init(self):
        if not hasattr(self, "_acc_pending"):
            self._acc_pending: _Pending | None = None
            self._acc_state = (None, None)              # (key signature, mode)
            self._acc_origin: dict = {}                 # Value -> (memory binding, index, version)
            self._acc_version: dict = {}                # id(memory binding) -> stores so far
            self._acc_ids = 0
            self._acc_state_val: Value | None = None    # the IR value the module's output state holds
            self._acc_head: dict = {}                   # id(block) -> state value at its head
            self._acc_fusable: set = set()              # id(xor op) that may be chained
            self._acc_deferred: dict = {}               # xor result Value -> the deferred xor op
            self._acc_single_use: set = set()           # id(Value) used once (by a fusable xor)
            self._acc_arm: dict = {}                    # id(branch block) -> (key, mode) at its head
            self._acc_end: dict = {}                    # id(block) -> (key, mode) at its end

    # --- IR walk hooks ---------------------------------------------------------------------
    def select_op(self, op: Op) -> None:
        self._accel_init()
        code = op.opcode
        if code == "accel_start":
            return self._accel_start(op)
        if code == "accel_result":
            return self._accel_result(op)
        if code == "xor" and id(op) in self._acc_fusable:
            self._acc_deferred[op.results[0]] = op      # selected at its accel_start
            return
        if code in STORES:
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
        if id(block) in self._acc_head:
            self._acc_state_val = self._acc_head[id(block)]
        if id(block) in self._acc_arm:
            self._acc_state = self._acc_arm.pop(id(block))
        if self.accel is not None and self.accel.xor_in and self.accel.delay_slot:
            self._find_fusable(block)
        if self.accel is None or not self.accel.delay_slot or not any(o.opcode == "accel_start" for o in block.ops):
            out = super().select_block(block)
        else:
            ops = hoist_starts(block.ops)
            saved = block.ops
            try:
                block.ops = ops                 # the IR is not changed: the list is restored
                out = super().select_block(block)
            finally:
                block.ops = saved
        self._acc_end[id(block)] = self._acc_state
        return out

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
        if need is None and self.accel is not None and self._branch_needs(op):
            super().select_for(op)
            self.accel_flush()
            self._acc_state = (None, None)
            self._acc_state_val = None
            return
        if need is None and _contains_accel(op.regions):
            self._acc_state = (None, None)      # unknown at the loop head (the back edge)
            self._acc_head[id(op.regions[0])] = None
            super().select_for(op)
            self.accel_flush()
            self._acc_state = (None, None)
            self._acc_state_val = None
            return
        if need is not None:
            self._accel_ensure(need[0], need[1], key_bits=need[2])
        head, after = self._loop_state(op)
        self._acc_head[id(op.regions[0])] = head
        super().select_for(op)
        if need is not None:
            self.accel_flush()
            self._acc_state = (need[0], need[1])        # ((signature, form), mode), as ensured
        self._acc_state_val = after

    def select_if(self, op: Op) -> None:
        self._accel_init()
        self._flush_before_region(op)
        for region in op.regions:               # each branch starts from the state before the if
            self._acc_head[id(region)] = self._acc_state_val
            # ... and from the module's key and mode before it (the other branch's writes are
            # not made on this path), unless a loop set them for this branch (`_branch_needs`)
            self._acc_arm.setdefault(id(region), self._acc_state)
        super().select_if(op)
        for region in op.regions:               # a branch a constant condition left out
            self._acc_arm.pop(id(region), None)
        ends = [self._acc_end.pop(id(r)) for r in op.regions if id(r) in self._acc_end]
        if _contains_accel(op.regions):
            self.accel_flush()
            # the key and mode every branch leaves (the one a constant condition selected), or
            # none known when they may differ
            same = ends and all(e == ends[0] for e in ends) and None not in ends[0]
            self._acc_state = ends[0] if same else (None, None)
            self._acc_state_val = None

    def select_call(self, op: Op) -> None:
        self._accel_init()
        self.accel_flush()
        super().select_call(op)
        self._acc_state_val = None

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
        """(key limbs, block limbs, the key's IR value if it is one operand): the key is the
        first logical operand (after legalization, the first `words[0]` word operands)."""
        nkey = op.attrs["words"][0] if "words" in op.attrs else 1
        key, block = [], []
        for i, a in enumerate(op.args):
            (key if i < nkey else block).extend(self.get(a))
        key_value = op.args[0] if len(op.args) == 2 else None
        return key, block, key_value

    def _latency(self, bits: int) -> dict:
        return self.accel.latency_by_key.get(bits, self.accel.latency) if bits != 128 else self.accel.latency

    def _accel_start(self, op: Op) -> None:
        if self.accel is None:
            raise self._accel_error(op)
        deferred = self._acc_deferred.pop(op.args[-1], None) if len(op.args) == 2 else None
        if deferred is not None:
            if self._accel_chain(op, deferred):
                return
            self.accel_flush()
            super().select_op(deferred)                 # not provably the state: the XOR as usual
        self.accel_flush()
        bits, kind = op_parts(op)                       # kind: "encrypt" | "decrypt"
        key, block, key_value = self._split_args(op)
        sig = self._key_sig(key_value) if key_value is not None else None
        form = "cipher"
        if kind == "decrypt" and self._acc_state[0] is not None and self._acc_state[0][1] == "last" \
                and sig is not None and self._acc_state[0][0] == sig[0]:
            form = "last"                               # the loop set up the generated key
        mode = self.accel_mode("decrypt_generated_key" if form == "last" else kind, bits)
        self._accel_ensure(((sig[0] if sig else None), form), mode, key_limbs=key, key_bits=bits)
        self._acc_ids += 1
        self.accel.stats["starts"] += 1
        self.accel_write_block(block)
        lat = self._latency(bits)["decrypt_generated_key" if form == "last" else kind]
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
        self._acc_state_val = op.results[0] if len(op.results) == 1 else None
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

    def _accel_ensure(self, key, mode, key_limbs=None, key_bits: int = 128) -> None:
        """Make the module hold `key` = (signature or None, "cipher" | "last") and `mode`."""
        sig, form = key
        cur_key, cur_mode = self._acc_state
        if sig is None or cur_key != (sig, form):
            if key_limbs is None:
                key_limbs = self._key_from_sig(sig)
            self._acc_state_val = None                  # a key write: the state is not relied on
            if form == "last":
                # generate the decryption key: OP=10, write the key, wait, then OP=11
                self.accel_set_mode(self.accel_mode("keygen", key_bits))
                self.accel_write_key(key_limbs)
                self._acc_ids += 1
                self.emit(GO, Imm(self._acc_ids), Imm(self._latency(key_bits)["keygen"]))
                self.emit(WAIT, Imm(self._acc_ids))
                cur_mode = None
            else:
                if cur_mode == self.accel_mode("keygen", key_bits):
                    cur_mode = None
                if self.accel.mode_before_key and cur_mode != mode:
                    self.accel_set_mode(mode)           # the key length first: it clears the key
                    self.accel.stats["mode_sets"] += 1
                    cur_mode = mode
                self.accel_write_key(key_limbs)
            self.accel.stats["key_loads"] += 1
        if cur_mode != mode:
            self.accel_set_mode(mode)
            self.accel.stats["mode_sets"] += 1
        self._acc_state = ((sig, form) if sig is not None else None, mode)

    # --- chaining through the XOR-in register -----------------------------------------------
    def _find_fusable(self, block: Block) -> None:
        """Mark the XOR ops of `block` to select at their start: those whose one use is the
        block operand of an encryption start in the same block and one of whose operands is,
        by the op order, the module's state at that start (the last result before it, or the
        state at the block's head). Operands used only there are noted: they need no read."""
        uses: dict = {}
        for o in _iter_ops([block], None):
            for a in o.args:
                if isinstance(a, Value):
                    uses[id(a)] = uses.get(id(a), 0) + 1
        for v in block.yields:
            uses[id(v)] = uses.get(id(v), 0) + 1
        defs = {id(r): o for o in block.ops for r in o.results}
        state = self._acc_state_val
        for o in block.ops:
            if o.opcode == "accel_result":
                state = o.results[0] if len(o.results) == 1 else None
            elif o.opcode == "call" or (o.regions and _contains_accel(o.regions)):
                state = None
            elif o.opcode == "accel_start" and len(o.args) == 2 and op_parts(o)[1] == "encrypt":
                x = defs.get(id(o.args[1]))
                if x is not None and x.opcode == "xor" and uses.get(id(o.args[1])) == 1 and state is not None \
                        and any(a is state for a in x.args):
                    self._acc_fusable.add(id(x))
                    if uses.get(id(state)) == 1:
                        self._acc_single_use.add(id(state))

    def _accel_chain(self, op: Op, xor: Op) -> bool:
        """Start `op` = E(xor's result) through the XOR-in register if one operand of `xor` is the
        module's state and the key and mode stay; False (nothing emitted) otherwise."""
        y = self._acc_state_val
        if y is None or not any(a is y for a in xor.args):
            return False
        other = xor.args[1] if xor.args[0] is y else xor.args[0]
        bits, kind = op_parts(op)
        sig = self._key_sig(op.args[0])
        mode = self.accel_mode(kind, bits)
        if sig is None or self._acc_state != ((sig[0], "cipher"), mode):
            return False
        p = self._acc_pending
        if p is not None and any(r is y for r in p.results) and id(y) not in self._acc_single_use:
            self.accel_flush()                          # y has other uses: read it before the start
        m = self.get(other)                             # (reads a pending result if `other` is one)
        p = self._acc_pending
        if p is not None:                               # the state itself: wait, but do not read
            self._acc_pending = None
            self.emit(WAIT, Imm(p.ident))
        self._acc_ids += 1
        self.accel.stats["starts"] += 1
        self.accel.stats["chained"] += 1
        self.accel_write_block_xor(m)
        self.emit(GO, Imm(self._acc_ids), Imm(self._latency(bits)[kind]))
        self._acc_pending = _Pending(op, self._acc_ids, [])
        self._acc_token = op.results[0]
        return True

    def _loop_state(self, op: Op):
        """(state value at the body's head, state value after the loop) for a loop whose
        accelerator ops use one key and mode: a loop-carried value whose initial value is the
        state before the loop and whose next value is the result of the body's last accelerator
        op is the state at the head and, as the loop's result, after it; a body without
        accelerator ops keeps the state; otherwise it is unknown (None)."""
        before = self._acc_state_val
        body = op.regions[0]
        if not _contains_accel(op.regions):
            return before, before
        last = None
        for o in body.ops:
            if o.opcode in ("accel_start", "accel_result", "call") or (o.regions and _contains_accel(o.regions)):
                last = o
        if before is None or last is None or last.opcode != "accel_result" or len(last.results) != 1:
            return None, None
        inits = op.args[2:]
        for j, (init, y) in enumerate(zip(inits, body.yields)):
            if init is before and y is last.results[0]:
                return body.params[1 + j], op.results[j]
        return None, None

    def _key_from_sig(self, sig):
        b, idx = self._sig_binding[sig]
        return self.accel_key_limbs(b, idx)

    def _branch_needs(self, op: Op) -> bool:
        """A loop whose accelerator operations all sit in the branches of one `if` of its body,
        whose condition does not change in the loop (`x == k` or `x != k` of a value x defined
        before it, or such a value itself), each branch with one key and kind (`_loop_need`):
        every trip takes the same branch, so the module's key and mode are set before the loop,
        on the branch of the condition, and each branch starts from its own (OCB3's shared
        crypt, `if decrypting == 1 { D(...) } else { E(...) }`: no key written per block).
        Emits that set-up and returns True; emits nothing and returns False otherwise."""
        body = op.regions[0]
        if any(True for _ in _iter_ops(op.regions, "call")):
            return False
        outer = [o for o in body.ops if o.opcode in ("accel_start", "accel_result")
                 or (o.regions and _contains_accel(o.regions))]
        if len(outer) != 1 or outer[0].opcode != "if" or len(outer[0].regions) != 2:
            return False
        branch = outer[0]
        test = self._invariant_test(branch.args[0], body)
        if test is None:
            return False
        needs = []
        for region in branch.regions:          # None: a branch that leaves the module alone
            n = None
            if _contains_accel([region]):
                n = self._loop_need(op, [region])
                if n is None:
                    return False
            needs.append(n)
        self.accel_flush()
        els, end = self.mf.label("else"), self.mf.label("endif")
        test(els)                               # to `els` unless the condition holds
        states, before = [], self._acc_state
        for k, n in enumerate(needs):
            self._acc_state = before            # the test does not touch the module
            if n is not None:
                self._accel_ensure(n[0], n[1], key_bits=n[2])
            states.append(self._acc_state)
            if k == 0:
                self.emit("jmp", Lbl(end))
                self.label(els)
        self.label(end)
        for region, st in zip(branch.regions, states):
            self._acc_arm[id(region)] = st
        self._acc_state = (None, None)          # either branch's: unknown outside them
        self._acc_state_val = None
        return True

    def _invariant_test(self, c: Value, body: Block):
        """A function emitting `branch to label unless c holds` before the loop whose body is
        `body`, for a condition that no trip changes; None for any other condition."""
        defs = {r: o for o in body.ops for r in o.results}
        variant = set(body.params)
        d = defs.get(c)
        if d is None:
            if c in variant:
                return None
            return lambda label: self.branch_if_zero(self.get(c), label)
        if d.opcode not in ("eq", "ne") or len(d.args) != 2:
            return None

        def const(v):
            o = defs.get(v)
            if o is not None:
                return o.attrs.get("value") if o.opcode == "const" else None
            return None if v in variant else self.const_of(self.get(v))

        x, k = d.args
        if const(k) is None:
            x, k = k, x
        kv = const(k)
        if kv is None or x in defs or x in variant or x.width > self.LIMB:
            return None
        if d.opcode == "eq":
            return lambda label: self.branch_unless_equal(self.get(x), kv, label)
        # x != k holds unless x == k: jump over the branch-unless-equal
        def ne(label):
            past = self.mf.label("ne")
            self.branch_unless_equal(self.get(x), kv, past)
            self.emit("jmp", Lbl(label))
            self.label(past)
        return ne

    def _loop_need(self, op: Op, regions=None):
        """((key signature, form), mode, key bits) every accelerator op of the loop body (or of
        `regions` inside it) uses, if they all use one key element not stored in the loop and one
        kind; else None."""
        regions = op.regions if regions is None else regions
        starts = list(_iter_ops(regions, "accel_start"))
        if not starts or any(True for _ in _iter_ops(regions, "call")):
            return None
        parts = {op_parts(s) for s in starts}
        if len(parts) != 1:
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
            if o.opcode in STORES and (not _safe_mem(self, o.args[0]) or id(self.memory(o.args[0])) == bid):
                return None
        sig = (bid, idx, self._acc_version.get(bid, 0))
        if not hasattr(self, "_sig_binding"):
            self._sig_binding = {}
        self._sig_binding[sig] = (b, idx)
        bits, kind = parts.pop()
        form = "last" if kind == "decrypt" else "cipher"
        mode = self.accel_mode("decrypt_generated_key" if form == "last" else kind, bits)
        return (sig, form), mode, bits

    def _accel_error(self, op, why="this chip has no accelerator (choose aes=soft)"):
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
