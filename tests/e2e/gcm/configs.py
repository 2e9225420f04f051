"""The GCM variants the tests here compile (sim_engine caches each in-process and on disk)."""

# (chip, knobs): GCM's default GHASH (shoup4) with software AES on both targets and with the
# CC430 AES module; AES-256 once, so a second key schedule length goes through the same GHASH;
# the Cortex-M0+ with tables and code in RAM (ARMv6-M `placement=ram`: called from the runtime in
# flash through the linker's long-branch veneers), and its fastest variant (M0PLUS_FAST).
M0PLUS_FAST = {"placement": "ram", "ghash_word": "32", "ghash_unroll": "full", "aes_unroll": "full"}
CONFIGS = [("cc430f6137", {}), ("cc430f6137", {"aes": "accel"}), ("cc430f6137", {"key_bits": 256}),
           ("stm32f030", {}), ("stm32f030", {"key_bits": 192}), ("samd21g18", {"placement": "ram"}),
           ("samd21g18", M0PLUS_FAST)]


def config_id(c) -> str:
    return c[0] + "".join(f"-{k}={v}" for k, v in sorted(c[1].items()))


def config_params() -> list:
    """CONFIGS as pytest params: the fastest M0+ variant (code-heavy, unrolled) in the slow tier."""
    from tests.tiers import tiered
    return tiered(CONFIGS, lambda c: c[1] is not M0PLUS_FAST)
