"""The carry chain of a bit permutation (shared, codegen/select/shifts.py `perm_carry`) holds a
segment's register only from the segment's first bit to its last: the selector's calls are
recorded on a stand-in target and the registers live at each step counted. Spongent's pLayer
(bit j to 40 j mod 159) has 12 segments but about 4 open at once; holding all 12 for the whole
chain spilled one on MSP430 (each of its bits then an rrc on a stack slot)."""
from aedsl.codegen.mir import Imm
from aedsl.codegen.select.shifts import ShiftOps

SPONGENT = [40 * j % 159 for j in range(159)] + [159]


class Recorder(ShiftOps):
    """The hooks perm_carry calls, as a log of (event, register)."""
    LIMB = 16
    BITWISE = {"or": "bis"}

    def __init__(self):
        self.log, self.n = [], 0

    def copy(self, limb):
        self.n += 1
        if limb == Imm(0):
            self.log.append(("clear", self.n))
        return self.n

    def undef(self):
        self.n += 1
        self.log.append(("undef", self.n))
        return self.n

    def carry_out(self, r, end):
        self.log.append(("out", r))

    def carry_in(self, r, end):
        self.log.append(("in", r))

    def shift_limb(self, r, k):
        self.log.append(("place", r))
        return r

    def shift_limb_cost(self, k):
        return abs(k)

    def bitop(self, mn, a, b):
        self.log.append(("place", b))
        return a


def test_a_segment_holds_a_register_only_while_open():
    rec = Recorder()
    plan = rec.perm_carry_plan(SPONGENT, 160, "low", "high")
    assert len(plan[2]) == 12
    rec.perm_carry(list(range(100, 110)), 160, plan)
    ins = [r for event, r in rec.log if event == "in"]
    last = {r: n for n, r in enumerate(ins)}
    open_, peak, seen = set(), 0, 0
    for event, r in rec.log:
        if event in ("clear", "undef"):
            open_.add(r)                        # taken: holds a register from here
        elif event == "in":
            assert r in open_                   # cleared before its first bit
            if last[r] == seen:
                open_.discard(r)                # its last bit: it is placed next
            seen += 1
        peak = max(peak, len(open_))
    assert len(last) == 12 and not open_
    assert peak <= 5                            # all 12 at once before


def test_a_segment_that_fills_its_register_to_the_far_end_needs_no_clear():
    """Entering at the top, a segment reaching bit 0 pushes every old bit of its register out
    of the placed result: no clear. The pLayer's ten such segments (eight whole words, the low
    bytes of words 2 and 7) start undefined; the two high bytes, or-ed over a low byte, are
    cleared."""
    rec = Recorder()
    plan = rec.perm_carry_plan(SPONGENT, 160, "low", "high")
    rec.perm_carry(list(range(100, 110)), 160, plan)
    taken = [event for event, _ in rec.log if event in ("clear", "undef")]
    assert taken.count("undef") == 10 and taken.count("clear") == 2
    segs = plan[2]
    assert [rec.carry_flushes(s, "high") for s in segs].count(False) == 2
    assert all(s[1] == 8 for s in segs if not rec.carry_flushes(s, "high"))
    # entering at the bottom: the segment must reach the top bit instead
    assert rec.carry_flushes([0, 15, 3], "low") and not rec.carry_flushes([0, 14, 0], "low")
    assert rec.carry_flushes([0, 0, 15], "high") and not rec.carry_flushes([0, 1, 15], "high")
