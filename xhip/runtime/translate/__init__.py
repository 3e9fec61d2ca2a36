"""Translators from ops to plan steps: `base` holds the registry and what every
translator sees, and one module per dialect registers its translators on import
(`xhip.runtime.plan` imports them all)."""
