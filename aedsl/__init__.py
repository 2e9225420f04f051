"""aedsl: authenticated-encryption specs compiled to MSP430X and ARMv6-M assembly."""
__version__ = "0.1.0"
