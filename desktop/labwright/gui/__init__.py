"""The desktop app (PySide6). Only this package imports Qt; core/ never imports it."""
