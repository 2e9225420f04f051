"""Engines: what runs one compiled spec for the vector runner (interpreter, simulator, reference libraries)."""
