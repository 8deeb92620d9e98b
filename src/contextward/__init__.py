"""contextward: keep an AI coding agent's critical context alive, and prove it."""

__version__ = "0.1.0"

__all__ = ["__version__"]
