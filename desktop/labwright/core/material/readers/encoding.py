"""Guessing the text encoding of a file from samples of its bytes.

Lab files are mostly UTF-8, but Chinese instruments and Excel exports often
write GBK, and Windows tools write UTF-16 with a BOM. Picking the wrong one
produces mojibake the model then "reads" as data, so the order matters:
BOM, then strict UTF-8, then GB18030 when the result is plausibly Chinese,
then charset-normalizer, else the file is treated as binary.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from labwright.core.material.fence import Opened

HEAD_BYTES = 64 * 1024
EXTRA_SAMPLE_BYTES = 16 * 1024

_BOMS: tuple[tuple[bytes, str, str, int], ...] = (
    # UTF-32 first: its LE BOM starts with the UTF-16 LE BOM.
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32 LE (BOM)", 4),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32 BE (BOM)", 4),
    (codecs.BOM_UTF8, "utf-8", "UTF-8 (BOM)", 1),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16 LE (BOM)", 2),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16 BE (BOM)", 2),
)


@dataclass(frozen=True)
class Encoding:
    codec: str  # a Python codec name usable with bytes.decode
    label: str  # how the note names it
    unit: int  # bytes per code unit: 1 (ASCII-compatible), 2 (UTF-16) or 4 (UTF-32)
    bom_len: int  # bytes to skip at the start of the file

    @property
    def worth_mentioning(self) -> bool:
        return self.codec not in ("utf-8", "ascii")


UTF8 = Encoding("utf-8", "UTF-8", 1, 0)


def _decodes(data: bytes, codec: str, *, final: bool) -> str | None:
    try:
        return codecs.getincrementaldecoder(codec)(errors="strict").decode(data, final=final)
    except (UnicodeDecodeError, LookupError):
        return None


def _common_gb2312(ch: str) -> bool:
    # GB2312 level 1 (lead bytes B0-D7) holds the 3,755 most frequent hanzi and
    # A1-A9 the full-width punctuation and symbols; real Chinese text is almost
    # all of these. Latin-1 or Shift-JIS bytes misread as GBK land elsewhere.
    try:
        lead = ch.encode("gb2312")[0]
    except UnicodeEncodeError:
        return False
    return 0xA1 <= lead <= 0xA9 or 0xB0 <= lead <= 0xD7


def _plausibly_chinese(text: str) -> bool:
    non_ascii = [c for c in text if ord(c) > 0x7F]
    if not non_ascii:
        return False
    return sum(_common_gb2312(c) for c in non_ascii) / len(non_ascii) >= 0.6


_WESTERN_SYMBOLS = set("°±µ²³¹·×÷€£¥§©®¼½¾‘’‚“”„–—…•™")


def _plausibly_western(text: str) -> bool:
    """Text in Windows-1252: mostly ASCII words with some accented letters.

    Cyrillic or Greek code pages also decode as cp1252 letters, but then
    nearly every letter is non-ASCII, which is what the letter ratio catches.
    """
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return False
    non_ascii = [c for c in text if ord(c) > 0x7F]
    if not all(
        ("\u00c0" <= c <= "\u00ff" and c.isalpha()) or c in _WESTERN_SYMBOLS for c in non_ascii
    ):
        return False
    accented = sum(1 for c in letters if ord(c) > 0x7F)
    return accented / len(letters) < 0.3


def _utf16_without_bom(sample: bytes) -> Encoding | None:
    # ASCII-range text in UTF-16 has a zero in every other byte.
    if len(sample) < 8:
        return None
    even, odd = sample[0::2], sample[1::2]
    z_even = even.count(0) / len(even)
    z_odd = odd.count(0) / len(odd)
    if (
        z_odd > 0.4
        and z_even < 0.05
        and _decodes(sample[: len(sample) // 2 * 2], "utf-16-le", final=False)
    ):
        return Encoding("utf-16-le", "UTF-16 LE (no BOM)", 2, 0)
    if (
        z_even > 0.4
        and z_odd < 0.05
        and _decodes(sample[: len(sample) // 2 * 2], "utf-16-be", final=False)
    ):
        return Encoding("utf-16-be", "UTF-16 BE (no BOM)", 2, 0)
    return None


def _looks_binary(text: str) -> bool:
    if not text:
        return False
    controls = sum(1 for c in text if (ord(c) < 32 and c not in "\t\n\r\f\v\x1a") or c == "\x7f")
    return controls / len(text) > 0.02


def _after_first_newline(chunk: bytes) -> bytes:
    # A newline byte is always a character boundary in UTF-8 and GB18030, so
    # a sample cut from the middle of a file decodes cleanly from there on.
    i = chunk.find(b"\n")
    return chunk[i + 1 :] if i >= 0 else b""


def read_samples(src: Opened, size: int) -> tuple[bytes, list[bytes]]:
    """The head of the file, plus a few slices from the middle and end of big files."""
    head = src.pread(HEAD_BYTES, 0)
    extras: list[bytes] = []
    if size > HEAD_BYTES + EXTRA_SAMPLE_BYTES:
        for frac in (0.25, 0.5, 0.75, 1.0):
            pos = max(HEAD_BYTES, int(size * frac) - EXTRA_SAMPLE_BYTES)
            extras.append(src.pread(EXTRA_SAMPLE_BYTES, pos))
    return head, extras


def detect_encoding(
    head: bytes, extras: list[bytes] | None = None, *, whole: bool = False
) -> Encoding | None:
    """The encoding of a text file, or None when the bytes are not text.

    `head` is the start of the file (`whole` when it is the entire file);
    `extras` are slices from further on, used when the head is plain ASCII.
    """
    for bom, codec, label, unit in _BOMS:
        if head.startswith(bom):
            body = head[len(bom) :]
            if unit > 1:
                body = body[: len(body) // unit * unit]
            text = _decodes(body, codec, final=whole)
            if text is None or _looks_binary(text):
                return None
            return Encoding(codec, label, unit, len(bom))
    if not head:
        return UTF8

    utf16 = _utf16_without_bom(head)
    if utf16 is not None:
        return utf16
    if b"\x00" in head:
        return None

    samples = [head] + [_after_first_newline(x) for x in (extras or [])]
    if all(s.isascii() for s in samples):
        return Encoding("utf-8", "ASCII", 1, 0) if not _looks_binary(head.decode("ascii")) else None

    def all_decode(codec: str) -> list[str] | None:
        out = []
        for i, s in enumerate(samples):
            t = _decodes(s, codec, final=whole and i == 0)
            if t is None:
                return None
            out.append(t)
        return out

    texts = all_decode("utf-8")
    if texts is not None:
        return None if _looks_binary(texts[0]) else UTF8

    texts = all_decode("gb18030")
    if texts is not None and _plausibly_chinese("".join(texts)) and not _looks_binary(texts[0]):
        return Encoding("gb18030", "GB18030/GBK", 1, 0)

    texts = all_decode("cp1252")
    if texts is not None and _plausibly_western("".join(texts)) and not _looks_binary(texts[0]):
        return Encoding("cp1252", "Windows-1252", 1, 0)

    from charset_normalizer import from_bytes

    best = from_bytes(head).best()
    if best is None or best.encoding is None:
        return None
    codec = codecs.lookup(best.encoding).name
    if codec.startswith(("utf-16", "utf-32")):
        return None  # without a BOM or zero pattern this guess is noise
    try:
        ascii_compatible = "\n\r,\t".encode(codec) == b"\n\r,\t"
    except (LookupError, UnicodeError):
        ascii_compatible = False
    if not ascii_compatible:
        return None
    text = head.decode(codec, errors="replace")
    if _looks_binary(text):
        return None
    return Encoding(codec, codec.upper().replace("_", "-"), 1, 0)


def detect_file_encoding(src: Opened) -> Encoding | None:
    size = src.size
    head, extras = read_samples(src, size)
    return detect_encoding(head, extras, whole=size <= len(head))
