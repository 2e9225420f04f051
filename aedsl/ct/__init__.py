"""Constant-time checking of a compiled variant (`aedsl ct`, docs/CONSTANT_TIME.md).

- `roles`: which parameters of an exported function are secret (the model's one table);
- `findings`: what an analysis reports (a `Finding`, with its spec line);
- `taint_ir`: secret-taint analysis of the IR the target compiled (branches, loop bounds, memory
  indices);
- `taint_mir`: the same on the selected, scheduled and allocated machine IR of every function
  (branches and loops the selection made, instructions whose latency depends on their operands,
  memory indices);
- `dynamic`: the generated code run in the simulator on random secrets at fixed public inputs,
  and with the public inputs varied;
- `check`: the three together for one (spec, chip, knobs) and the verdict; `report` renders it.
"""
