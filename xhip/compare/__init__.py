"""xhip-compare: same-machine A/B of pipelines over a suite of models and shapes (see cli.py)."""
