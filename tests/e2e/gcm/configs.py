"""The GCM variants the tests here compile (sim_engine caches each in-process and on disk)."""

# (chip, knobs): GCM's default GHASH (shoup4) with software AES on both targets and with the
# CC430 AES module; AES-256 once, so a second key schedule length goes through the same GHASH.
CONFIGS = [("cc430f6137", {}), ("cc430f6137", {"aes": "accel"}), ("cc430f6137", {"key_bits": 256}),
           ("stm32f030", {}), ("stm32f030", {"key_bits": 192})]


def config_id(c) -> str:
    return c[0] + "".join(f"-{k}={v}" for k, v in sorted(c[1].items()))
