"""Execution of xhip IR: the launch program (bind once, run many times), backends, runs."""
