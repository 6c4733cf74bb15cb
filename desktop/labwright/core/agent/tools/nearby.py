"""What is there instead: the answer to a path the model got wrong.

A small model's first call is often `list_dir("/Users/your_username/...")` or a
file name it guessed. Such a call is a mistake to correct, not a tool failing:
the answer names the closest real paths and the top of the folder, so the next
call can succeed. Walking is bounded (`MAX_WALK` entries) and skips hidden
entries, as the scan does.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path, PurePosixPath

from labwright.core.material.fence import open_beneath
from labwright.core.material.workspace import safe_name

MAX_WALK = 5000  # entries looked at, at most: a huge folder still answers at once
CLOSEST = 3
TOP = 12  # top-level names shown


def _listing(root: str, parts: list[str]) -> list[os.DirEntry[str]]:
    """A folder's entries, sorted, listed through a descriptor opened beneath root (no link
    followed: a folder swapped for a link meanwhile is not listed); [] when it cannot be."""
    try:
        with open_beneath(root, parts) as opened:
            if not opened.is_dir:
                return []
            # The entries' is_dir() below is an fstatat() on this descriptor: keep it open.
            entries = sorted(opened.scandir(), key=lambda e: e.name)
            for e in entries:
                e.is_dir(follow_symlinks=False)  # cached now, while the descriptor is open
            return entries
    except OSError:
        return []


def _walk(root: str, folders: bool) -> list[str]:
    """Visible paths under root, relative, shallow first; folders end with '/'."""
    found: list[str] = []
    queue = [""]
    while queue and len(found) < MAX_WALK:
        rel = queue.pop(0)
        entries = _listing(root, rel.split("/") if rel else [])
        for e in entries:
            if e.name.startswith("."):
                continue
            path = f"{rel}/{e.name}" if rel else e.name
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                queue.append(path)
                if folders:
                    found.append(path + "/")
            else:
                found.append(path)
            if len(found) >= MAX_WALK:
                break
    return found


def closest(root: Path, wanted: str, *, folders: bool = False) -> list[str]:
    """Up to CLOSEST real paths nearest to `wanted`: the same name first (an absolute
    or guessed path whose tail is right), then similar spellings."""
    candidates = _walk(os.path.realpath(root), folders)
    if not candidates:
        return []
    parts = [p for p in str(wanted).replace("\\", "/").split("/") if p not in ("", ".", "..")]
    if not parts:
        return []
    name = parts[-1].lower()
    by_name = [c for c in candidates if PurePosixPath(c.rstrip("/")).name.lower() == name]
    tail = "/".join(parts[-2:]).lower()
    lowered = {c.lower(): c for c in candidates}
    similar = difflib.get_close_matches(tail, list(lowered), n=CLOSEST, cutoff=0.5)
    names = {PurePosixPath(c.rstrip("/")).name.lower(): c for c in reversed(candidates)}
    similar += difflib.get_close_matches(name, list(names), n=CLOSEST, cutoff=0.6)
    out: list[str] = []
    for c in [*by_name, *(lowered.get(s) or names[s] for s in similar)]:
        if c not in out:
            out.append(c)
    return out[:CLOSEST]


def top_level(root: Path) -> str:
    """The folder's first entries, for a model that has not looked yet."""
    entries = _listing(os.path.realpath(root), [])
    if not entries:
        return ""
    names = sorted(
        (e.name + "/" if e.is_dir(follow_symlinks=False) else e.name)
        for e in entries
        if not e.name.startswith(".")
    )
    shown = ", ".join(safe_name(n) for n in names[:TOP])
    more = f" and {len(names) - TOP} more" if len(names) > TOP else ""
    return f"{shown}{more}" if names else "(empty)"


def correction(root: Path, wanted: str, *, folders: bool = False) -> str:
    """Sentences that say what is there instead of `wanted`."""
    near = closest(root, wanted, folders=folders)
    lines = []
    if near:
        lines.append("Closest real paths: " + ", ".join(safe_name(p) for p in near) + ".")
    top = top_level(root)
    if top:
        lines.append(f"The folder's top level ('.'): {top}.")
    lines.append("Paths are relative to the material's root; call list_dir('.') to see more.")
    return " ".join(lines)
