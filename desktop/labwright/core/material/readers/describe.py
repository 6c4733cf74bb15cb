"""One line of facts about a file, without reading it as text.

Used by the folder scan for every file and by `read_file` for files that have
no text to page through (images, archives, executables). Each branch stays
cheap: headers, directories and a few member names, never whole contents.
"""

from __future__ import annotations

import gzip
import html
import re
import tarfile
import warnings
import zipfile
from pathlib import Path

from labwright.core.material.readers.page import ReadError, human_size
from labwright.core.material.readers.pdf import pdf_page_count
from labwright.core.material.readers.sniff import Sniffed, sniff
from labwright.core.material.readers.source import Opened, reading

MEMBER_NAMES = 5
TAR_SCAN_LIMIT = 200
TAR_SCAN_MAX_BYTES = 100 * 1024 * 1024


def _names(names: list[str], total: int | str) -> str:
    shown = ", ".join(names[:MEMBER_NAMES])
    more = f", ... ({total} in all)" if isinstance(total, str) or total > MEMBER_NAMES else ""
    return f"{shown}{more}" if shown else "no members"


def describe_image(src: Opened, what: str) -> tuple[str, bool]:
    """(description, decodable). A broken image is described, never raised."""
    from PIL import Image, UnidentifiedImageError

    size = human_size(src.size)
    try:
        with warnings.catch_warnings():
            # Huge scans trip Pillow's decompression-bomb warning; size is just a fact here.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with src.stream() as f, Image.open(f) as img:
                fmt, (w, h), mode = img.format, img.size, img.mode
                frames = getattr(img, "n_frames", 1)
                img.verify()
    except (
        UnidentifiedImageError,
        OSError,
        SyntaxError,
        ValueError,
        Image.DecompressionBombError,
    ) as e:
        reason = str(e).split("\n")[0][:120] or type(e).__name__
        return (
            f"{what}, {size}, but it is unreadable (damaged or not really an image: {reason})",
            False,
        )
    anim = f", {frames} frames" if frames and frames > 1 else ""
    return f"{fmt} image, {w}x{h} pixels, mode {mode}{anim}, {size}", True


def _describe_zip(src: Opened, what: str, size: str) -> str:
    try:
        with src.stream() as f, zipfile.ZipFile(f) as zf:
            infos = [i for i in zf.infolist() if not i.is_dir()]
            unpacked = sum(i.file_size for i in infos)
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        return f"{what}, {size}, damaged ({e})"
    names = [i.filename for i in infos]
    return f"{what}, {size}, {len(names)} files ({human_size(unpacked)} unpacked): {_names(names, len(names))}"


def _describe_tar(src: Opened, what: str, size_bytes: int) -> str | None:
    size = human_size(size_bytes)
    try:
        with src.stream() as f, tarfile.open(fileobj=f) as tf:
            names: list[str] = []
            complete = True
            for member in tf:
                names.append(member.name + ("/" if member.isdir() else ""))
                if len(names) >= TAR_SCAN_LIMIT or (
                    size_bytes > TAR_SCAN_MAX_BYTES and len(names) >= MEMBER_NAMES
                ):
                    complete = False
                    break
    except (tarfile.TarError, OSError, EOFError, ValueError):
        return None
    count: int | str = len(names) if complete else f"more than {len(names)}"
    kind = "tar archive" if what == "tar archive" else f"tar archive ({what})"
    return f"{kind}, {size}, {count} members: {_names(names, count)}"


def _gzip_name(src: Opened) -> str:
    # The original file name sits in the gzip header when the FNAME flag is set.
    head = src.pread(1024, 0)
    if len(head) < 10 or not head[3] & 0x08:
        return ""
    pos = 10
    if head[3] & 0x04:  # FEXTRA
        pos += 2 + int.from_bytes(head[10:12], "little")
    end = head.find(b"\x00", pos)
    return head[pos:end].decode("latin-1") if end > pos else ""


def _describe_archive(src: Opened, s: Sniffed, size_bytes: int) -> str:
    size = human_size(size_bytes)
    if "ZIP" in s.what or "OpenDocument" in s.what:
        return _describe_zip(src, s.what, size)
    if s.what in (
        "tar archive",
        "gzip-compressed data",
        "bzip2-compressed data",
        "xz-compressed data",
    ):
        tar = _describe_tar(src, s.what, size_bytes)
        if tar is not None:
            return tar
    if s.what == "gzip-compressed data":
        name = _gzip_name(src)
        if name:
            return f"{s.what}, {size}, original name {name!r}"
        try:
            with src.stream() as f, gzip.open(f) as g:
                g.read(1)
        except (OSError, EOFError) as e:
            return f"{s.what}, {size}, damaged ({e})"
    return f"{s.what}, {size}"


def _xlsx_sheets(src: Opened) -> list[str]:
    try:
        with src.stream() as f, zipfile.ZipFile(f) as zf:
            xml = zf.read("xl/workbook.xml").decode("utf-8", "replace")
    except (KeyError, zipfile.BadZipFile, OSError):
        return []
    return [
        html.unescape(n) for n in re.findall(r"<(?:\w+:)?sheet\b[^>]*?\bname=\"([^\"]*)\"", xml)
    ]


def _pdf_facts(src: Opened, size_bytes: int) -> str:
    head = src.pread(1024, 0)
    m = re.search(rb"%PDF-(\d\.\d)", head)
    version = f", version {m.group(1).decode()}" if m else ""
    pages = ""
    if size_bytes <= 50 * 1024 * 1024:
        n = pdf_page_count(src)
        if n is not None:
            pages = f", {n} page{'s' if n != 1 else ''}"
    return f"PDF document{version}{pages}"


def describe_sniffed(src: Opened, s: Sniffed) -> str:
    size_bytes = src.size
    size = human_size(size_bytes)
    if s.kind == "image":
        return describe_image(src, s.what)[0]
    if s.kind == "archive":
        return _describe_archive(src, s, size_bytes)
    if s.kind == "empty":
        return "empty file (0 bytes)"
    if s.kind == "xlsx":
        sheets = _xlsx_sheets(src)
        listed = f", {len(sheets)} sheets: {_names(sheets, len(sheets))}" if sheets else ""
        return f"{s.what}{listed}, {size}"
    if s.kind == "pdf":
        return f"{_pdf_facts(src, size_bytes)}, {size}"
    if s.encoding is not None:
        return f"{s.what} ({s.encoding.label}), {size}"
    return f"{s.what}, {size}"


def describe_file(source: Path | Opened) -> str:
    """One line of facts: kind, size, and per kind what is cheap to learn."""
    try:
        with reading(source) as src:
            if src.is_dir:
                return "directory"
            return describe_sniffed(src, sniff(src))
    except FileNotFoundError:
        return "missing file"
    except PermissionError:
        return "unreadable file (permission denied)"
    except (OSError, ReadError) as e:
        return f"unreadable file ({e})"
