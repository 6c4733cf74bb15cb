"""The skeleton's preamble: the template's, minus packages TeX cannot load, plus its own."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from pathlib import Path

from labwright.core.report.offline.language import _CJK
from labwright.core.report.templates import Template

_PACKAGES = ("graphicx", "booktabs", "array")
_COMPACT_UNCERTAINTY = re.compile(r"\\(?:SI|num)\{[^{}]*\(\d+\)")


_USEPACKAGE_LINE = re.compile(r"^(\s*\\usepackage(?:\[[^\]]*\])?\{)([^}]*)(\}.*)$")


# Files a package needs beyond its .sty: hyperref's XeTeX driver loads the
# ZapfDingbats metrics (texlive-fonts-recommended) and stops the run without them.
_PACKAGE_NEEDS: dict[str, tuple[str, ...]] = {"hyperref": ("pzdr.tfm",)}


@functools.lru_cache(maxsize=8)
def _missing_packages(names: tuple[str, ...]) -> frozenset[str]:
    """The packages of `names` this TeX installation cannot load (one kpsewhich call).

    Unknown when kpsewhich is absent or fails: then nothing counts as missing.
    """
    kpsewhich = shutil.which("kpsewhich")
    if not kpsewhich or not names:
        return frozenset()
    needs = {n: (f"{n}.sty", *_PACKAGE_NEEDS.get(n, ())) for n in names}
    files = sorted({f for group in needs.values() for f in group})
    try:
        done = subprocess.run(
            [kpsewhich, *files], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    found = {Path(line.strip()).name for line in done.stdout.splitlines() if line.strip()}
    return frozenset(n for n, group in needs.items() if not set(group) <= found)


def _without_missing_packages(preamble: str) -> str:
    """Comment out template packages that are not installed.

    The skeleton uses no macro of the template's optional packages (siunitx,
    say), and an offline report that does not compile for want of one helps
    nobody; a model-written report keeps the template as it is.
    """
    lines = preamble.split("\n")
    missing = _missing_packages(tuple(sorted({n for line in lines for n in _packages_of(line)})))
    if not missing:
        return preamble
    out = []
    for line in lines:
        names = _packages_of(line)
        if not missing.intersection(names):
            out.append(line)
            continue
        out.append(f"% {line.strip()} % cannot be loaded here; the skeleton does not need it")
        kept = [n for n in names if n not in missing]
        m = _USEPACKAGE_LINE.match(line)
        if kept and m:
            out.append(m.group(1) + ",".join(kept) + m.group(3))
    return "\n".join(out)


def _packages_of(line: str) -> list[str]:
    m = _USEPACKAGE_LINE.match(line)
    return [n.strip() for n in m.group(2).split(",") if n.strip()] if m else []


def siunitx_available() -> bool:
    """Can this TeX load siunitx? (Unknown counts as yes, like _missing_packages.)"""
    return "siunitx" not in _missing_packages(("siunitx",))


def _preamble(template: Template, body: str) -> str:
    """The template's preamble plus what the skeleton itself needs, when missing."""
    preamble = _without_missing_packages(template.preamble.rstrip("\n")) + "\n"
    loaded = set(re.findall(r"\\usepackage(?:\[[^\]]*\])?\{([^}]*)\}", preamble))
    names = {name.strip() for group in loaded for name in group.split(",")}
    wanted = (*_PACKAGES, "siunitx") if re.search(r"\\(?:si|SI|num)\{", body) else _PACKAGES
    extra = [p for p in wanted if p not in names]
    if extra:
        preamble += f"\\usepackage{{{','.join(extra)}}}\n"
    if "\\FloatBarrier" in body and "placeins" not in names:
        # Without placeins the barriers only go: floats may then drift, nothing breaks.
        available = "placeins" not in _missing_packages(("placeins",))
        preamble += (
            "\\usepackage{placeins}\n" if available else "\\providecommand{\\FloatBarrier}{}\n"
        )
    # A fit's "\SI{0.4342(79)}{...}" reads as value ± u, as a lab report writes it, only
    # with this option (siunitx 2 and 3 both take it); without, it prints "0.4342(79)".
    if _COMPACT_UNCERTAINTY.search(body) and "separate-uncertainty" not in preamble:
        preamble += "\\sisetup{separate-uncertainty=true}\n"
    # Chinese text from the data in an English template needs a CJK font set up.
    cjk_ready = re.search(r"ctex|xeCJK|CJK", preamble)
    if _CJK.search(body) and not cjk_ready:
        preamble += "\\usepackage[UTF8,scheme=plain]{ctex}\n"
    return preamble
