"""The agent core: pure Python, never imports Qt (an import-linter contract checks it)."""

__version__ = "0.1.0"
