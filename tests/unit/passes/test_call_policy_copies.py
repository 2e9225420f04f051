"""The call policy's second reason to keep a call: copies. A function that loops over its input
(a run-time trip count: a message, AD) and is called from several places costs its whole size
per inlined copy but only a few tens of cycles per message as a call. Before, EAX with the
accelerator inlined OMAC six times (16 244 B of ROM on cc430f6137, now ~6 300 B). A pure
per-block helper never qualifies, whatever its size and copies: it stays inlined so that table
fusion can still turn it into tables (OCB3's InvMixColumns, five copies)."""

from aedsl.frontend.elaborate import load_module
from aedsl.ir.passes import call_policy

from tests.paths import ROOT


def decisions(spec, knobs):
    return call_policy.decide(load_module(ROOT / "specs/schemes" / spec, knobs))


def test_eax_with_the_accelerator_keeps_omac_as_a_call():
    d = decisions("eax.ae", {"aes": "accel"})["omac"]
    assert d["sites"] == 6 and d["work"] < call_policy.MIN_WORK       # not kept for its work...
    assert d["keep"]                                                 # ...but for its six copies


def test_per_block_helpers_stay_inlined_for_table_fusion():
    d = decisions("ocb3.ae", {"aes": "soft"})["E.inv_mix_column"]
    assert d["sites"] >= 4 and d["sites"] * d["size"] >= call_policy.MIN_COPIES_SIZE
    assert not d["keep"]


def test_small_loops_over_the_input_stay_inlined():
    """CCM's header and CTR's keystream loop: two copies, under MIN_COPIES_SIZE (the CCM header
    as a call cost 1.6 cycles/byte at IPI for 1 KB of ROM: it would break the delay slot)."""
    assert not decisions("ccm.ae", {"aes": "accel"})["mac_header"]["keep"]
    assert not decisions("ctr.ae", {"aes": "accel"})["xor_stream"]["keep"]
