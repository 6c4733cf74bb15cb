"""The desktop app (PySide6). Only this package imports Qt; core/ never imports it."""

from labwright.gui import qtcompat  # noqa: F401  (first: repairs a PySide6 reference bug before any widget exists)
