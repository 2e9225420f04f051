"""Cycle tables of the cores, as data cited from the manuals: read by the simulators and by the targets' cost models."""
