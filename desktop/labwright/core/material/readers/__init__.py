"""Readers behind `read_file`: any file becomes numbered lines, paged.

Contract (used by tools/read_file.py and the coverage guard):

    read_page(path, offset=0, limit=None) -> Page   (raises ReadError)

Every format is presented as lines of text (a sheet's rows, a PDF's pages,
a notebook's cells...), so the model pages through all of them the same way,
with `offset` (first line, 0-based) and `limit` (number of lines).
"""

from labwright.core.material.readers.describe import describe_file
from labwright.core.material.readers.dispatch import read_page
from labwright.core.material.readers.page import (
    DEFAULT_LIMIT,
    DEFAULT_TIME_S,
    Page,
    ReadCancelled,
    ReadError,
)

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_TIME_S",
    "Page",
    "ReadCancelled",
    "ReadError",
    "describe_file",
    "read_page",
]
