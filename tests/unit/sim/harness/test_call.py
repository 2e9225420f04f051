"""Program.call on both targets: arguments in registers and on the stack, buffers, the stack
measure, the stop symbol, .data reloading, the step limit and the cycle-accounting convention."""
from __future__ import annotations

import pytest

from aedsl import chips, toolchain
from aedsl.sim.base import SimError
from aedsl.sim.harness import Buffer, Program
from aedsl.backends.registry import target_for

from .conftest import ALL_CHIPS, ASM


@pytest.fixture(scope="module")
def programs(harness_elf):
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = Program(harness_elf(name), name)
        return cache[name]
    return get


@pytest.mark.parametrize("name", ALL_CHIPS)
def test_buffers_and_pointer_return(name, programs):
    p = programs(name)
    dst, src = bytes(range(1, 11)), bytes(range(0xA0, 0xAA))
    r = p.call("xor_into", [dst, src, len(dst)])
    assert r.buffers[0] == bytes(a ^ b for a, b in zip(dst, src))
    assert r.buffers[1] == src
    assert r.return_value == r.buffer_addrs[0] + len(dst)        # dst pointer advanced n times
    assert all(p.chip.ram.origin <= a < p.chip.ram.end for a in r.buffer_addrs)
    assert r.stopped_at == "return"


@pytest.mark.parametrize("name", ALL_CHIPS)
def test_stack_arguments(name, programs):
    r = programs(name).call("sum6", [1, 2, 3, 4, 500, 6000])
    assert r.return_value == 6510


# Cycles run from the function's first instruction through its return; the caller's CALL/BL is
# not counted. sum6 is three register adds, two loads of stack arguments and a return:
#   CPUXV2 (SLAU208 4.5): ADD Rn,Rn 1; ADD x(SP),Rn 3; RET 4          -> 3 + 6 + 4 = 13
#   MSP430 (SLAU144 3.4.4): ADD Rn,Rn 1; ADD x(SP),Rn 3; RET 3        -> 3 + 6 + 3 = 12
#   Cortex-M0 (DDI0432C 3-1): ADDS 1 (x5); LDR 2 (x2); BX LR 3        -> 5 + 4 + 3 = 12
@pytest.mark.parametrize("name, cycles, instructions", [
    ("cc430f6137", 13, 6), ("msp430f5528", 13, 6), ("msp430f1611", 12, 6), ("stm32f030", 12, 8)])
def test_cycle_accounting_convention(name, cycles, instructions, programs):
    r = programs(name).call("sum6", [1, 2, 3, 4, 5, 6])
    assert (r.cycles, r.instructions) == (cycles, instructions)


@pytest.mark.parametrize("name, expected", [
    ("cc430f6137", 16), ("msp430f1611", 16), ("msp430f5528", 16), ("stm32f030", 28)])
def test_stack_bytes(name, expected, programs):
    # MSP430: 6 pushes + CALL + 1 push = 16 bytes; ARM: push {r4-r7,lr} + push {r4,lr} = 28 bytes
    r = programs(name).call("uses_stack")
    assert r.stack_bytes == expected
    assert r.return_value == 0x1234


@pytest.mark.parametrize("name", ["cc430f6137", "stm32f030"])
def test_leaf_without_stack_use(name, programs):
    assert programs(name).call("sum6", [1, 2, 3, 4, 5, 6]).stack_bytes == 0


@pytest.mark.parametrize("name", ["msp430f1611", "stm32f030"])
def test_data_is_reloaded_for_each_call(name, programs):
    p = programs(name)
    assert p.call("bump").return_value == 42
    assert p.call("bump").return_value == 42
    assert p.call("bump", reload=False).return_value == 43
    assert int.from_bytes(p.read("counter", 2), "little") == 43


@pytest.mark.parametrize("name", ["cc430f6137", "stm32f030"])
def test_stop_symbol(name, programs):
    r = programs(name).call("two_phase", stop="midpoint")
    assert r.stopped_at == "stop"
    assert r.return_value == 1
    assert r.instructions == 1
    assert r.pc == programs(name).address("midpoint")


@pytest.mark.parametrize("name", ["cc430f6137", "stm32f030"])
def test_step_limit_is_an_error(name, programs):
    with pytest.raises(SimError, match="spin did not return within 1000 instructions"):
        programs(name).call("spin", max_steps=1000)


@pytest.mark.parametrize("name", ["cc430f6137", "msp430f1611", "stm32f030"])
def test_buffers_in_the_bench_region(name, harness_elf):
    p = Program(harness_elf(name), name, bench=True)
    n = 1200 if target_for(p.chip).name == "armv6m" else 360   # msp430f1611's bench hole: 1792 bytes, 1024 for `big`
    dst, src = bytes(i & 0xFF for i in range(n)), bytes((7 * i) & 0xFF for i in range(n))
    r = p.call("xor_into", [Buffer(dst, region="bench"), Buffer(src, region="bench"), n])
    region = toolchain.bench_region(p.chip)
    assert all(region.origin <= a < region.end for a in r.buffer_addrs)
    assert r.buffer_addrs[0] >= p.address("big") + 1024           # after the ELF's own .benchbuf
    assert r.buffers[0] == bytes(a ^ b for a, b in zip(dst, src))


def test_buffers_too_big_for_ram(programs, harness_elf):
    p = programs("stm32f030")
    with pytest.raises(SimError, match="buffer_region='bench'"):
        p.call("xor_into", [bytes(4000), bytes(10), 0])
    small = Program(harness_elf("msp430f1611"), "msp430f1611", bench=True)
    with pytest.raises(SimError, match="overflow the bench region"):
        small.call("xor_into", [bytes(400), bytes(400), 0], buffer_region="bench")


def test_bad_arguments(programs):
    p = programs("cc430f6137")
    with pytest.raises(SimError, match="does not fit a 16-bit word"):
        p.call("sum6", [0x10000])
    with pytest.raises(SimError, match="expected an int, bytes or Buffer"):
        p.call("sum6", ["1"])


@pytest.mark.parametrize("name", ["cc430f6137", "stm32f030"])
def test_stats(name, programs):
    r = programs(name).call("xor_into", [bytes(8), bytes(range(8)), 8], stats=True)
    assert sum(r.stats.mnemonics.values()) == r.instructions
    assert r.stats.mem_writes >= 8


@pytest.mark.needs("msp430")
def test_reta_with_a_20_bit_return_address(build_dir):
    chip = chips.load("cc430f6137")
    obj = toolchain.assemble(ASM / "reta_msp430x.s", build_dir / "reta.o", chip)
    p = Program(toolchain.link([obj], build_dir / "reta.elf", chip), chip)
    r = p.call("seven_reta", ret20=True)
    assert r.return_value == 7 and r.stopped_at == "return"
