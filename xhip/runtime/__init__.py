"""Execution of final xhip IR: host plans, backends and the reference kernels of hip ops."""
