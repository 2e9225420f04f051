"""Running a sweep's tasks: cached outcomes are taken from the cache, the others go to a
`concurrent.futures.Executor` -- worker processes on this machine (`--jobs`), the calling process
itself (`--jobs 1`), or a dask.distributed scheduler (`--dask ADDRESS`, the optional `dask`
extra), all through the same `submit` -- with a progress bar on stderr. Outcomes come back in
task order whatever order the workers finish in."""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import sys

from .cache import Cache, task_key
from .task import Outcome, Task, run_task


class InlineExecutor(cf.Executor):
    """Runs each task in the calling process when it is submitted (no start-up, no pickling)."""

    def submit(self, fn, /, *args, **kwargs):
        fut: cf.Future = cf.Future()
        try:
            fut.set_result(fn(*args, **kwargs))
        except BaseException as e:
            fut.set_exception(e)
        return fut


@contextlib.contextmanager
def executor(jobs: int = 1, dask: str | None = None):
    """The executor the tasks go to; dask: a scheduler address ("tcp://host:8786"), or a
    `distributed.Client` / cluster object (tests pass a LocalCluster)."""
    if dask is not None:
        try:
            from distributed import Client
        except ImportError:
            raise ImportError("--dask needs dask.distributed: pip install 'aedsl[dask]'") from None
        with Client(dask) as client:
            yield client.get_executor(pure=False)
        return
    if jobs <= 1:
        yield InlineExecutor()
        return
    with cf.ProcessPoolExecutor(max_workers=jobs) as pool:
        yield pool


def _progress(total: int, enabled: bool):
    from tqdm import tqdm
    return tqdm(total=total, unit="variant", file=sys.stderr, disable=not enabled or None, leave=False)


def all_cached(tasks: list[Task], cache: Cache) -> bool:
    return all(cache.get(task_key(t)) is not None for t in tasks)


def run(tasks: list[Task], pool: cf.Executor, cache: Cache | None = None, progress: bool = True,
        ) -> tuple[list[Outcome], int]:
    """(the outcome of every task in order, how many came from the cache)."""
    results: list[Outcome | None] = [None] * len(tasks)
    keys = [task_key(t) for t in tasks] if cache else [None] * len(tasks)
    hits = 0
    for i, key in enumerate(keys):
        got = cache.get(key) if cache else None
        if got is not None:
            results[i], hits = Outcome.from_dict(got), hits + 1
    todo = [i for i, r in enumerate(results) if r is None]
    with _progress(len(tasks), progress) as bar:
        bar.update(hits)
        futures = {pool.submit(run_task, tasks[i]): i for i in todo}
        for fut in cf.as_completed(futures):
            i = futures[fut]
            out = fut.result()
            results[i] = Outcome.from_dict(out)
            if cache and results[i].cacheable:
                cache.put(keys[i], out)
            bar.update(1)
    return results, hits
