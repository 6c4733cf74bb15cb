"""PDF documents as lines: each page's extracted text after a page marker."""

from __future__ import annotations

import logging
import warnings
from typing import TYPE_CHECKING

from labwright.core.material.readers.cache import Converted
from labwright.core.material.readers.page import MAX_CELL_CHARS, Budget, LineMap, ReadError, clip
from labwright.core.material.readers.source import Opened

# Pages converted at most; pypdf itself caps each stream's inflated size.
MAX_PAGES = 2000

if TYPE_CHECKING:
    from pypdf import PdfReader


def _open(src: Opened) -> PdfReader:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    path = src.path  # for its name in messages only
    try:
        reader = PdfReader(src.stream(), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise ReadError(
                f"The PDF {path.name} is password-protected; it can't be read without the password."
            )
    except ReadError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, IndexError) as e:
        raise ReadError(f"The PDF {path.name} is damaged and can't be read ({e}).") from e
    except NotImplementedError as e:  # unsupported encryption algorithms
        raise ReadError(f"The PDF {path.name} uses encryption that can't be opened ({e}).") from e
    return reader


def pdf_page_count(src: Opened) -> int | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return len(_open(src).pages)
    except Exception:  # a description must never fail because the PDF is odd
        return None


def page_heading(n: int) -> str:
    """The line before a page's text."""
    return f"--- page {n} ---"


def convert_pdf(src: Opened, budget: Budget | None = None) -> Converted:
    # pypdf reports recoverable damage through logging and warnings; neither
    # should reach the user's console or fail the run.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    budget = budget or Budget()
    cut = ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reader = _open(src)
        try:
            pages = list(reader.pages)
        except Exception as e:
            raise ReadError(
                f"The PDF {src.name} is damaged: its page tree can't be read ({e})."
            ) from e
        doc = LineMap()
        with_text = 0
        failed = 0
        for n, page in enumerate(pages, start=1):
            if n > MAX_PAGES:
                cut = f" Reading stopped after page {MAX_PAGES:,} (the page limit)."
                break
            if budget.check():
                cut = f" Reading stopped before page {n} (time limit, {budget.seconds:g} s)."
                break
            doc.add(page_heading(n), marker=True, page=n)
            try:
                text = page.extract_text() or ""
            except Exception:  # one broken page must not hide the others
                failed += 1
                doc.add("[the text of this page could not be extracted]", marker=True, page=n)
                continue
            page_lines = [clip(ln.rstrip(), MAX_CELL_CHARS * 10) for ln in text.splitlines()]
            page_lines = [ln for ln in page_lines if ln.strip()]
            if page_lines:
                with_text += 1
                doc.extend(page_lines, page=n)
            else:
                doc.add("[no text on this page]", marker=True, page=n)
    n = len(pages)
    if n and not with_text and cut:  # not "scanned": reading stopped before any text
        return Converted.of(
            doc, f"PDF with {n} page{'s' if n != 1 else ''}; no text so far.{cut}", False
        )
    if n and not with_text:
        return Converted.of(
            doc,
            f"This PDF has {n} page{'s' if n != 1 else ''} but no extractable text: it is probably scanned images; "
            "its content can't be read as text.",
            False,
        )
    note = f"PDF with {n} page{'s' if n != 1 else ''}."
    if failed:
        note += f" Text extraction failed on {failed} pages."
    return Converted.of(doc, note + cut)
