"""Where a TeX payload could put what it read: the checks the TeX security tests share.

Not a test module. `carried` searches every file of the run (raw bytes, the PDF's
text and every PDF stream decompressed: xdvipdfmx's `fstream` and embedded PDFs
are Flate streams a raw search cannot see), the canary image's size among the
PDF's images, and the texts of a compile result (what reaches the fix model and
run.json).
"""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

from pypdf import PdfReader
from pypdf.errors import PyPdfError

from canary import CANARY, SECRET_KEY, leaks

NEEDLES = (CANARY, SECRET_KEY)
MARK_W, MARK_H = 7, 5  # the canary image's size: an embedded copy is recognisable
_STREAM = re.compile(rb"stream\r?\n(.*?)endstream", re.DOTALL)


def png(path: Path, text: str) -> None:
    """A tiny PNG of MARK_W x MARK_H pixels carrying `text` in a tEXt chunk."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * MARK_W for _ in range(MARK_H))
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", MARK_W, MARK_H, 8, 2, 0, 0, 0))
        + chunk(b"tEXt", b"Comment\x00" + text.encode())
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def text_pdf(path: Path, text: str) -> None:
    """A one-page PDF whose content stream shows `text` as a literal string: embedded
    anywhere, a decompressed stream of the host PDF carries it."""
    content = f"BT /F1 12 Tf 20 20 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 60] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    path.write_bytes(bytes(out))


def images(pdf: Path) -> list[tuple[int, int]]:
    """Sizes of every image XObject in `pdf`, inside form XObjects too (none when
    pypdf cannot read it: `streams` still searches such a file)."""
    sizes: list[tuple[int, int]] = []

    def walk(resources, seen: set[int]) -> None:
        xobjects = (resources or {}).get("/XObject") or {}
        for ref in xobjects.values():
            obj = ref.get_object()
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if obj.get("/Subtype") == "/Image":
                sizes.append((int(obj["/Width"]), int(obj["/Height"])))
            elif obj.get("/Subtype") == "/Form":
                walk(obj.get("/Resources"), seen)

    try:
        for page in PdfReader(pdf).pages:
            walk(page.get("/Resources"), set())
    except PyPdfError:
        pass
    return sizes


def pdf_text(pdf: Path) -> str:
    try:
        return "\n".join(page.extract_text() or "" for page in PdfReader(pdf).pages)
    except PyPdfError:
        return ""


def streams(pdf: Path) -> list[bytes]:
    """Every stream of `pdf`, decompressed when it is Flate (raw otherwise)."""
    out = []
    for m in _STREAM.finditer(pdf.read_bytes()):
        data = m.group(1)
        try:
            out.append(zlib.decompressobj().decompress(data))
        except zlib.error:
            out.append(data)
    return out


def carried(run_dir: Path, links: list[Path], result=None) -> list[str]:
    """Everything that carries an outside file or the key out (see the module doc)."""
    for link in links:  # the planted links themselves would make leaks() read the target
        link.unlink(missing_ok=True)
    found = leaks([run_dir], NEEDLES)
    for pdf in run_dir.rglob("*.pdf"):
        if pdf.stat().st_size == 0:
            continue
        if (MARK_W, MARK_H) in images(pdf):
            found.append(f"{pdf}: the outside image is embedded")
        # listings typesets "-" as a minus sign and may space letters out
        text = "".join(pdf_text(pdf).replace("\u2212", "-").split())
        found += [f"{pdf}: {n[:12]}" for n in NEEDLES if n in text]
        found += [
            f"{pdf}: a stream holds {n[:12]}"
            for n in NEEDLES
            if any(n.encode() in s for s in streams(pdf))
        ]
    if result is not None:
        texts = [result.log_tail, *result.warnings]
        texts += [f"{e.file} {e.message} {e.context}" for e in result.errors]
        found += [f"compile result: {n[:12]}" for n in NEEDLES if any(n in t for t in texts)]
    return found
