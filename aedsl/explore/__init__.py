"""The engine behind `aedsl explore`: a sweep over knob values of one spec on one chip, each
variant compiled, verified on a vector sample and measured in a worker, results cached.

    grid.py    `--sweep KNOB=V1,V2` parsing, the knob combinations, their validation
    task.py    one variant's work (compile, verify, measure) -> an `Outcome`; runs in a worker
    cache.py   outcomes kept on disk, keyed by everything that can change them
    sweep.py   tasks onto a `concurrent.futures` executor (processes, or a dask cluster), progress
    pareto.py  the Pareto front of (ROM, cycles/byte) points
    report.py  the CSV, the text table and the JSON
    plot.py    the PNG: ROM against cycles/byte, the front, the papers' figures beside ours
"""
