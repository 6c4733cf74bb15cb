"""What a file is: magic bytes first, the extension second.

Lab folders are full of files with no or wrong extensions (instrument dumps,
"data", "result.txt" that is really an xlsx), so the content decides whenever
it carries a signature.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass

from labwright.core.material.readers.encoding import Encoding, detect_file_encoding
from labwright.core.material.readers.source import Opened

IMAGE_EXTS = {".png", ".jpg", ".jpeg", ".bmp", ".gif", ".tif", ".tiff", ".webp"}
ARCHIVE_EXTS = {".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".zst"}
NB_MARKER = b"application/vnd.wolfram.mathematica"


@dataclass(frozen=True)
class Sniffed:
    kind: str  # a Page.kind, or "ole" (an old binary Office file) for the dispatcher
    what: str  # the sniffed type in words, e.g. "gzip-compressed data"
    encoding: Encoding | None = None  # for text kinds


# (signature, offset, kind, what)
_MAGIC: tuple[tuple[bytes, int, str, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", 0, "image", "PNG image"),
    (b"\xff\xd8\xff", 0, "image", "JPEG image"),
    (b"GIF87a", 0, "image", "GIF image"),
    (b"GIF89a", 0, "image", "GIF image"),
    (b"II*\x00", 0, "image", "TIFF image"),
    (b"MM\x00*", 0, "image", "TIFF image"),
    (b"\x1f\x8b", 0, "archive", "gzip-compressed data"),
    (b"\xfd7zXZ\x00", 0, "archive", "xz-compressed data"),
    (b"7z\xbc\xaf\x27\x1c", 0, "archive", "7-Zip archive"),
    (b"Rar!\x1a\x07", 0, "archive", "RAR archive"),
    (b"\x28\xb5\x2f\xfd", 0, "archive", "Zstandard-compressed data"),
    (b"ustar", 257, "archive", "tar archive"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        0,
        "ole",
        "old Microsoft Office file (OLE2: .xls/.doc/.ppt)",
    ),
    (b"\x7fELF", 0, "binary", "ELF executable or library"),
    (b"\xcf\xfa\xed\xfe", 0, "binary", "Mach-O executable"),
    (b"\xca\xfe\xba\xbe", 0, "binary", "Java class file or Mach-O universal binary"),
    (b"SQLite format 3\x00", 0, "binary", "SQLite database"),
    (b"\x89HDF\r\n\x1a\n", 0, "binary", "HDF5 data file"),
    (b"\x93NUMPY", 0, "binary", "NumPy .npy array"),
    (b"MATLAB 5.0 MAT-file", 0, "binary", "MATLAB .mat data file"),
    (b"OggS", 0, "binary", "Ogg media"),
    (b"fLaC", 0, "binary", "FLAC audio"),
    (b"ID3", 0, "binary", "MP3 audio"),
    (b"\x00asm", 0, "binary", "WebAssembly module"),
    (b"SIMPLE  =", 0, "binary", "FITS astronomical data file"),
)


def _riff(head: bytes) -> Sniffed | None:
    if head[:4] != b"RIFF" or len(head) < 12:
        return None
    sub = head[8:12]
    if sub == b"WEBP":
        return Sniffed("image", "WebP image")
    if sub == b"WAVE":
        return Sniffed("binary", "WAV audio")
    if sub == b"AVI ":
        return Sniffed("binary", "AVI video")
    return Sniffed("binary", "RIFF container")


_DIB_HEADER_SIZES = {12, 40, 52, 56, 64, 108, 124}


def _bmp(head: bytes) -> bool:
    # "BM" alone also starts plenty of text files; check the DIB header size.
    return head[:2] == b"BM" and int.from_bytes(head[14:18], "little") in _DIB_HEADER_SIZES


def _windows_exe(head: bytes, ext: str) -> bool:
    # "MZ" also starts ordinary words; trust it only with a PE header or the extension.
    if head[:2] != b"MZ" or len(head) < 64:
        return False
    pe_at = int.from_bytes(head[60:64], "little")
    return head[pe_at : pe_at + 4] == b"PE\0\0" or ext in (".exe", ".dll", ".sys", ".com")


def _zip_kind(src: Opened) -> Sniffed:
    try:
        with src.stream() as f, zipfile.ZipFile(f) as zf:
            names = set(zf.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return Sniffed("archive", "damaged ZIP archive")
    if "word/document.xml" in names:
        return Sniffed("docx", "Word document (.docx)")
    if "xl/workbook.xml" in names:
        return Sniffed("xlsx", "Excel workbook (.xlsx)")
    if "ppt/presentation.xml" in names:
        return Sniffed("binary", "PowerPoint presentation (.pptx)")
    if "mimetype" in names and any(n.startswith("META-INF/") for n in names):
        return Sniffed("archive", "OpenDocument or EPUB package")
    return Sniffed("archive", "ZIP archive")


def sniff(src: Opened) -> Sniffed:
    """Classify a regular file. Text files come back with their encoding."""
    head = src.pread(4096, 0)
    if not head:
        return Sniffed("empty", "empty file")
    ext = src.suffix.lower()

    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return _zip_kind(src)
    pdf_at = head.find(b"%PDF-", 0, 1024)
    if pdf_at >= 0:
        return Sniffed("pdf", "PDF document")
    for sig, at, kind, what in _MAGIC:
        if head[at : at + len(sig)] == sig:
            return Sniffed(kind, what)
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] == b"1AY&SY":
        return Sniffed("archive", "bzip2-compressed data")
    if _windows_exe(head, ext):
        return Sniffed("binary", "Windows executable (PE/DOS)")
    riff = _riff(head)
    if riff is not None:
        return riff
    if _bmp(head):
        return Sniffed("image", "BMP image")
    if len(head) >= 12 and head[4:8] == b"ftyp":
        brand = head[8:12]
        if brand in (b"heic", b"heix", b"mif1", b"avif"):
            return Sniffed("image", f"{brand.decode('ascii', 'replace')} image")
        return Sniffed("binary", "MP4/QuickTime media")

    enc = detect_file_encoding(src)
    if enc is None:
        if ext in IMAGE_EXTS:
            return Sniffed("image", f"{ext[1:].upper()} image (no valid signature)")
        if ext in ARCHIVE_EXTS:
            return Sniffed("archive", f"{ext[1:]} archive (no valid signature)")
        return Sniffed("binary", "binary data of an unrecognised format")

    if ext == ".nb" or NB_MARKER in head[:512]:
        return Sniffed("mathematica", "Mathematica notebook", enc)
    if ext == ".ipynb" or (ext == "" and head.lstrip().startswith(b"{") and b'"nbformat"' in head):
        return Sniffed("ipynb", "Jupyter notebook", enc)
    if ext == ".csv":
        return Sniffed("csv", "CSV text", enc)
    if ext in (".tsv", ".tab"):
        return Sniffed("tsv", "TSV text", enc)
    return Sniffed("text", "text", enc)
