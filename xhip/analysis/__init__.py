"""Analyses over xhip IR: read-only questions about a module, answered without rewriting it."""
