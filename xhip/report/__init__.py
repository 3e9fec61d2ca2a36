"""Reports on a compiled module: the memory report (`--memory-report FILE.json|.md|.png`).

`memory` reads the pool plan and the honest bounds off the IR and evaluates them
at a shape (`MemoryReport`); `formats` writes JSON and Markdown, `plot` the PNG;
`request` is the command-line side that xhip-opt and xhip-run share, and imports
the rest only when a report is written, so the tools start fast.
"""
