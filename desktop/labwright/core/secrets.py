"""Keys out of text and URLs: the one place a secret is taken out of what is shown or saved."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import unquote, urlsplit, urlunsplit


def redact_url(url: str) -> str:
    """The URL without userinfo (`https://user:key@host/v1` -> `https://host/v1`)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an invalid URL)"
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def hide_secrets(text: str, secrets: Iterable[str | None], mask: str = "***") -> str:
    """`text` with every (non-empty) secret replaced by `mask`, longest first so that a
    secret containing another is hidden whole. The one place a key is taken out of text."""
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, mask)
    return text


def url_secrets(url: str) -> list[str]:
    """What a URL's userinfo holds (user and password, raw and decoded): never shown."""
    try:
        netloc = urlsplit(url).netloc
    except ValueError:
        return [url]
    if "@" not in netloc:
        return []
    userinfo = netloc.rpartition("@")[0]
    out = {userinfo, *userinfo.split(":", 1)}
    out |= {unquote(s) for s in out}
    return sorted((s for s in out if len(s) >= 3), key=len, reverse=True)
