"""The worker pool: compile jobs (model x pipeline), then one measure job per model.

A model's measure job starts as soon as all its pipelines are compiled, so the
compiles of a large model (GPT-2's three take most of the test set's time) spread
over the workers instead of running one after the other in one. Workers are
spawned processes (nothing of the parent's state, no fork of a threaded
process) with BLAS pinned to one thread each: `--jobs N` uses N cores, and
latencies are not skewed by BLAS threads of one worker competing with another.
Each worker first compiles and runs a one-op model under every pipeline
(`warm_up`), so no job's compile time carries the worker's imports.
On a GPU, measure jobs run one at a time (compile jobs still in parallel): two
models timed on one device at once would slow each other down.

Ctrl-C belongs to the parent: a worker ignores SIGINT from its first instruction
(it is spawned with SIGINT blocked, and unblocks it only once it ignores it), so a
terminal's Ctrl-C to the whole process group prints no worker tracebacks; the
parent, interrupted (or failing) with jobs under way, kills the workers instead of
waiting for their jobs to end.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import time
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from multiprocessing import get_context

from xhip import environment
from xhip.compare.measure import (
    CompileJob,
    CompiledModel,
    Failure,
    MeasureJob,
    ModelResult,
    compile_model,
    measure_model,
    model_result,
    model_source,
    warm_up,
)
from xhip.compare.suite import Suite, SuiteModel

BLAS_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@dataclasses.dataclass(frozen=True)
class Settings:
    pipelines: tuple[str, ...]
    backend: str
    repeat: int
    seed: int
    workers: int


@contextmanager
def one_blas_thread_per_worker() -> Iterator[None]:
    """Workers are spawned with this environment, so BLAS reads it before NumPy loads it."""
    with environment.setting({name: "1" for name in BLAS_THREAD_VARIABLES}):
        yield


def runs_on_host(backend: str) -> bool:
    """Whether `backend` resolves to the reference backend here (asks the GPU drivers for `auto`)."""
    if backend == "reference":
        return True
    if backend != "auto":
        return False
    from xhip.runtime.backends import make_backend
    from xhip.runtime.backends.reference import ReferenceBackend

    return isinstance(make_backend("auto"), ReferenceBackend)


def _model_bytes(model: SuiteModel) -> int:
    source = model_source(model)
    return os.path.getsize(source) if isinstance(source, str) else source.ByteSize()


def _largest_first(models: Sequence[SuiteModel]) -> list[int]:
    """Model indices by decreasing size, so the longest compiles do not start last."""
    return sorted(range(len(models)), key=lambda index: -_model_bytes(models[index]))


class _Run:
    """The state of one suite's jobs: what is compiled, what is measured, what is pending."""

    def __init__(self, suite: Suite, settings: Settings, pool: ProcessPoolExecutor):
        self.suite, self.settings, self.pool = suite, settings, pool
        count = len(settings.pipelines)
        self.compiled: list[list[CompiledModel | None]] = [[None] * count for _ in suite.models]
        self.results: list[ModelResult | None] = [None] * len(suite.models)
        self.pending: dict[Future, tuple[int, int | None]] = {}
        self.compiles = deque(
            (model_index, pipeline_index)
            for model_index in _largest_first(suite.models)
            for pipeline_index in range(count)
        )
        self.measures: deque[int] = deque()
        self.measure_slots = settings.workers if runs_on_host(settings.backend) else 1
        self.started = time.perf_counter()

    def fill(self) -> None:
        """Keep every worker busy, a ready measure job before any compile (its model's result comes sooner)."""
        while len(self.pending) < self.settings.workers:
            if self.measures and self._measuring() < self.measure_slots:
                self._submit_measure(self.measures.popleft())
            elif self.compiles:
                self._submit_compile(*self.compiles.popleft())
            else:
                return

    def _measuring(self) -> int:
        return sum(pipeline_index is None for _, pipeline_index in self.pending.values())

    def _submit_compile(self, model_index: int, pipeline_index: int) -> None:
        job = CompileJob(self.suite.models[model_index], self.settings.pipelines[pipeline_index])
        self.pending[self.pool.submit(compile_model, job)] = (model_index, pipeline_index)

    def _submit_measure(self, model_index: int) -> None:
        settings = self.settings
        compiled = tuple(dataclasses.replace(c, stages=()) for c in self.compiled[model_index] if c is not None)
        job = MeasureJob(
            self.suite.models[model_index], compiled, settings.backend, settings.repeat, self.suite.tolerance, settings.seed
        )
        self.pending[self.pool.submit(measure_model, job)] = (model_index, None)

    def take(self, future: Future) -> None:
        model_index, pipeline_index = self.pending.pop(future)
        result = future.result()
        if isinstance(result, Failure):
            for other in self.pending:
                other.cancel()
            raise result.error()
        model = self.suite.models[model_index]
        if pipeline_index is not None:
            self.compiled[model_index][pipeline_index] = result
            if all(c is not None for c in self.compiled[model_index]):
                self.measures.append(model_index)
            return
        compiled = [c for c in self.compiled[model_index] if c is not None]
        self.results[model_index] = model_result(model, compiled, result)
        done = sum(r is not None for r in self.results)
        elapsed = time.perf_counter() - self.started
        print(f"xhip-compare: [{done}/{len(self.results)}] {model.label} measured ({elapsed:.1f} s)",
              file=sys.stderr, flush=True)


def _start_worker(pipelines: Sequence[str]) -> None:
    """A worker's first job: SIGINT ignored (a pending one dropped), then the warm-up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    warm_up(pipelines)


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT held back in this thread: the processes it spawns start with it blocked (a SIGINT to
    this process meanwhile waits, and its handler runs when the block ends)."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _stop_workers(pool: ProcessPoolExecutor) -> None:
    """End the pool now: no job is waited for (SIGKILL: a worker ignores SIGINT and may be mid-job)."""
    workers = list(pool._processes.values()) if pool._processes else []  # private: no public handle on them
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.kill()
    for worker in workers:
        worker.join(timeout=5)


@contextmanager
def worker_pool(settings: Settings) -> Iterator[ProcessPoolExecutor]:
    """The workers, started now: their imports and warm-up overlap what the caller checks meanwhile."""
    context = get_context("spawn")
    with one_blas_thread_per_worker(), ProcessPoolExecutor(
        settings.workers, mp_context=context, initializer=_start_worker, initargs=(settings.pipelines,)
    ) as pool:
        try:
            with _sigint_blocked():
                for _ in range(settings.workers):
                    pool.submit(int)  # an executor spawns a worker per job it cannot hand to an idle one
            yield pool
        except BaseException:
            _stop_workers(pool)
            raise


def measure_suite(pool: ProcessPoolExecutor, suite: Suite, settings: Settings) -> list[ModelResult]:
    """Every model's result, in suite order; progress on stderr; a worker's user error is raised here."""
    run = _Run(suite, settings, pool)
    run.fill()
    while run.pending:
        done, _ = wait(list(run.pending), return_when=FIRST_COMPLETED)
        for future in done:
            run.take(future)
        run.fill()
    return [result for result in run.results if result is not None]
