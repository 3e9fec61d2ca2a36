"""Graphs across shapes: a run at a new input shape replays a graph captured at another shape, with the nodes that changed updated.

A graph captured by `xhip.runtime.replay` serves one input-shape signature. At a new
shape the launch program still runs, because its host work decides the grids, extents and
pool offsets. Much of what it queues, though, is the same work at other sizes. A
decoder step with one more token of cache launches the same kernels in the same order,
and makes the same cuBLAS calls at the same addresses (the projections' m is the batch);
only the kernels that read the cache take other arguments. So while a run is recorded
(`GpuBackend.begin_recording`), its device work is written down instead of queued, a
segment of `SEGMENT` entries at a time, and each segment is matched against the graphs
captured before:

- A segment's topology key is what a graph node cannot change: the segment's place in
  the run, the order of its work, each library call (its shape and layout and its
  operands' addresses, since cuBLAS and cuDNN pick and parameterize their kernels per call) and each
  device-to-device copy. A kernel's function, grid, block and arguments, and a fill's
  address and size, are parameters of its node and can be updated in place.
- When a graph of that key exists, the kernel and fill nodes whose parameters differ
  from what the graph holds are updated (cuGraphExecKernelNodeSetParams costs about 3 us
  a node on the H200, against about 6 us for a launch and 15 us for a cuBLAS call,
  `benchmarks/graph_update_cost.py`). Then the graph is launched.
- When none exists, the segment is launched as it stands. On the second sighting of its
  key it is launched into a capture instead, and that graph is kept (at most `LIMIT`
  graphs; the oldest is dropped first).

A segment goes to the stream as soon as it is full, so the device runs one segment while
the host records the next. After the update, a graph's work is exactly its segment:
every node either matches the key or was set to the segment's parameters. A replay
therefore never runs another run's work. A node update the driver refuses drops that
graph, and the segment is launched as it stands. While a run is recorded, the launch
program re-runs only the steps whose operands changed (`Program.execute_recorded`): the
others record again the very entries they recorded at the run before. Runs that keep
missing (a server at ever new shapes) pause the recording (`ClassGraphs.note`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass

from xhip.kernels.abi import LibraryCall
from xhip.runtime.backends.gpu.driver import Driver, DriverError, PackedArgs, PreparedCall

KERNEL, LIBRARY, COPY, FILL = range(4)
"""The kinds of recorded work (the first item of each entry)."""

SEGMENT = 32
"""Entries per segment: a run's work goes to the stream a segment at a time, each through
a graph of its own where one fits, so that the device runs one segment while the host
records the next (a whole run recorded first would leave the device idle meanwhile)."""
LIMIT = 256
"""Graphs kept per backend (a GPT-2-size decoder step is ten segments; its logits buffer
alternates between two blocks, so its last segment has two graphs)."""
SEEN_LIMIT = 4096
"""Keys seen once that are remembered (a server at ever new shapes sees new keys every run)."""
MISSES_BEFORE_PAUSE = 8
"""Recorded runs in a row with some of their work launched as it stood before recording pauses:
a server at ever new shapes pays for the recording and gains nothing (BERT-base on the H200:
about 5% of a request's host time)."""
LONGEST_PAUSE = 64
"""Runs not recorded at most, after the pause doubled at every further miss."""


class Recording:
    """One run's device work in program order, handed to `ClassGraphs` a segment at a time."""

    __slots__ = ("work", "key", "graphs", "segment", "outcomes", "updated", "stopped", "tap")

    def __init__(self, graphs: ClassGraphs) -> None:
        self.work: list[tuple] = []  # type: ignore[type-arg]
        """The current segment's entries."""
        self.key: list[Hashable] = []
        self.graphs = graphs
        self.segment = 0
        self.outcomes: list[str] = []
        """Per segment queued: "updated", "captured" or "" (launched as it stands)."""
        self.updated = 0
        self.stopped = False
        """Set when the backend queued what was recorded and ended the recording early."""
        self.tap: list[tuple[tuple, Hashable]] | None = None  # type: ignore[type-arg]
        """Where each entry and its key are copied as well (`Program.execute_recorded`)."""

    def _add(self, entry: tuple, key: Hashable) -> None:  # type: ignore[type-arg]
        self.work.append(entry)
        self.key.append(key)
        if self.tap is not None:
            self.tap.append((entry, key))
        if len(self.work) >= SEGMENT:
            self.flush()

    def reissue(self, entries: list[tuple[tuple, Hashable]]) -> None:  # type: ignore[type-arg]
        """Record again what a tap took: an earlier run's work for the same operands."""
        for entry, key in entries:
            self._add(entry, key)

    def kernel(self, function: object, grid: tuple[int, int, int], block: tuple[int, int, int], args: PackedArgs) -> None:
        # The bytes now: a launcher shared by several ops of a run (strided copies) packs
        # the next op's arguments into the same buffer.
        self._add((KERNEL, function, grid, block, args, args.snapshot()), KERNEL)

    def library(self, run: PreparedCall, shape: LibraryCall, a: int, b: int, c: int) -> None:
        self._add((LIBRARY, run, a, b, c), (shape, a, b, c))

    def copy(self, target: int, source: int, nbytes: int) -> None:
        self._add((COPY, target, source, nbytes), (COPY, target, source, nbytes))

    def fill(self, address: int, byte: int, nbytes: int) -> None:
        if not nbytes:
            return  # the driver queues nothing for it: no node
        self._add((FILL, address, byte, nbytes), FILL)

    def flush(self) -> None:
        """Queue the current segment."""
        if not self.work:
            return
        outcome, updated = self.graphs.run((self.segment, *self.key), self.work)
        self.outcomes.append(outcome)
        self.updated += updated
        self.segment += 1
        self.work, self.key = [], []

    def summary(self) -> str:
        """How the run's work went: "updated" when every segment ran through an updated graph,
        "captured" when the rest did and some were captured, else "" (some launched)."""
        if "" in self.outcomes or not self.outcomes:
            return ""
        return "captured" if "captured" in self.outcomes else "updated"


def _parameters(entry: tuple) -> tuple | None:  # type: ignore[type-arg]
    """What a kernel or fill node of this entry holds; None for work that is all key."""
    kind = entry[0]
    if kind == KERNEL:
        return entry[1], entry[2], entry[3], entry[5]
    if kind == FILL:
        return entry[1:]
    return None


@dataclass
class ClassGraph:
    """A graph captured from one record, and what each of its updatable nodes holds now."""

    graph: object
    nodes: list[object | None]
    """Per recorded entry: its node (kernel and fill entries), else None."""
    held: list[tuple | None]  # type: ignore[type-arg]
    """Per recorded entry: the parameters its node holds (`_parameters`)."""


class ClassGraphs:
    """The graphs of one backend by topology key, and the keys seen once."""

    def __init__(self, driver: Driver):
        self._driver = driver
        self._graphs: OrderedDict[tuple[Hashable, ...], ClassGraph] = OrderedDict()
        self._seen: set[tuple[Hashable, ...]] = set()
        self.refused = ""
        """Why the driver refused a capture's node query ("" while it has not; after it,
        nothing is recorded)."""
        self._misses = 0
        self._pause = 0
        """Runs still to go unrecorded."""
        self._last_pause = 0

    def wants_recording(self) -> bool:
        """Whether the next run is recorded (not after a refusal, nor during a pause)."""
        if self.refused:
            return False
        if self._pause:
            self._pause -= 1
            return False
        return True

    def note(self, summary: str) -> None:
        """A recorded run's `Recording.summary`. `MISSES_BEFORE_PAUSE` runs in a row with some
        work launched as it stood pause the recording, and each miss after a pause pauses it
        twice as long (up to `LONGEST_PAUSE`); a run through graphs ends the pauses."""
        if summary:
            self._misses = self._last_pause = 0
            return
        self._misses += 1
        if self._misses >= MISSES_BEFORE_PAUSE:
            self._last_pause = min(max(2 * self._last_pause, MISSES_BEFORE_PAUSE), LONGEST_PAUSE)
            self._pause = self._last_pause
            self._misses = MISSES_BEFORE_PAUSE - 1  # the run after the pause decides on its own

    def run(self, key: tuple[Hashable, ...], work: list[tuple]) -> tuple[str, int]:  # type: ignore[type-arg]
        """Queue recorded work of this topology key: ("updated", nodes updated) through a graph
        of its key, ("captured", 0) into a new one, or ("", 0) launched as it stands."""
        graph = None if self.refused else self._graphs.get(key)
        if graph is not None:
            self._graphs.move_to_end(key)
            try:
                updated = self._update(graph, work)
            except DriverError:
                del self._graphs[key]  # what it holds is unknown now: never launch it again
            else:
                self._driver.replay(graph.graph)
                return "updated", updated
        elif key in self._seen and not self.refused:
            try:
                captured = self._capture(work)
            except DriverError as err:
                self.refused = err.message  # the driver takes no node updates: launch every run
            else:
                self._graphs[key] = captured
                if len(self._graphs) > LIMIT:
                    self._graphs.popitem(last=False)
                self._driver.replay(captured.graph)
                return "captured", 0
        else:
            if len(self._seen) >= SEEN_LIMIT:
                self._seen.clear()
            self._seen.add(key)
        launch(self._driver, work)
        return "", 0

    def _update(self, graph: ClassGraph, work: list[tuple]) -> int:  # type: ignore[type-arg]
        driver, updated = self._driver, 0
        for index, entry in enumerate(work):
            parameters = _parameters(entry)
            if parameters is None or parameters == graph.held[index]:
                continue
            if entry[0] == KERNEL:
                _, function, grid, block, args, raw = entry
                args.restore(raw)
                driver.update_kernel_node(graph.graph, graph.nodes[index], function, grid, block, 0, args)
            else:
                _, address, byte, nbytes = entry
                driver.update_fill_node(graph.graph, graph.nodes[index], address, byte, nbytes)
            graph.held[index] = parameters
            updated += 1
        return updated

    def _capture(self, work: list[tuple]) -> ClassGraph:  # type: ignore[type-arg]
        driver = self._driver
        nodes: list[object | None] = []
        driver.begin_capture()
        try:
            for entry in work:
                launch(driver, [entry])
                nodes.append(driver.captured_node() if entry[0] in (KERNEL, FILL) else None)
        finally:
            graph = driver.end_capture()
        return ClassGraph(graph, nodes, [_parameters(entry) for entry in work])


def launch(driver: Driver, work: list[tuple]) -> None:  # type: ignore[type-arg]
    """Queue recorded work on the stream, in its order."""
    for entry in work:
        kind = entry[0]
        if kind == KERNEL:
            _, function, grid, block, args, raw = entry
            args.restore(raw)
            driver.launch(function, grid, block, 0, args)
        elif kind == LIBRARY:
            entry[1](entry[2], entry[3], entry[4])
        elif kind == COPY:
            driver.copy(entry[1], entry[2], entry[3])
        else:
            driver.fill(entry[1], entry[2], entry[3])
