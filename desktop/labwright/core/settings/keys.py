"""API keys: the OS keyring (service "labwright", username = provider name) and the
environment. No Qt here. Which key may go to which server is decided by the server
(providers.provider_for_url); resolve.py puts the sources in their order.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Mapping
from typing import Any

from labwright.core.settings.providers import GENERIC_KEY_ENV, PROVIDERS, provider_for_url

KEYRING_SERVICE = "labwright"


class KeyStoreError(Exception):
    """The key cannot be stored; the message says what to do instead (and never holds the key)."""


_NO_KEYRING = (
    "No system keyring is available; set LABWRIGHT_API_KEY "
    "(or DEEPSEEK_API_KEY / OPENAI_API_KEY) instead."
)


_keyring_loaded = False


def _keyring() -> Any:
    """The keyring module, imported on first use: it scans its backends, which costs start-up time.

    The first import runs in a thread of its own. keyring keeps, for the life of the
    process, the traceback of an optional import that failed (jaraco's ExceptionTrap
    around `import winreg` in keyring.backends.Windows); through its frames' callers that
    traceback would keep alive whatever the caller's frames hold, such as the window
    whose Start button asked for a key. A thread's frames end at the thread."""
    global _keyring_loaded
    if not _keyring_loaded:
        loader = threading.Thread(target=_import_keyring, name="labwright-keyring")
        loader.start()
        loader.join()
        _keyring_loaded = True
    import keyring
    import keyring.errors

    return keyring


def _import_keyring() -> None:
    import keyring
    import keyring.errors

    with contextlib.suppress(Exception):  # a backend broken at set-up: keyring_available says
        keyring.get_keyring()


def _usable(backend: Any) -> bool:
    from keyring.backends import chainer, fail

    if isinstance(backend, fail.Keyring):
        return False
    if isinstance(backend, chainer.ChainerBackend):
        return bool(backend.backends)  # a chainer with nothing behind it stores nothing
    # keyring's null backend accepts everything and keeps nothing
    return type(backend).__module__ != "keyring.backends.null"


def keyring_available() -> bool:
    """Whether keys can be kept in the OS keyring (else only the environment supplies them)."""
    try:
        return _usable(_keyring().get_keyring())
    except Exception:  # a backend that breaks while being set up is no backend
        return False


def key_env_names(provider: str, base_url: str | None = None) -> tuple[str, ...]:
    """The environment variables whose key may go to `base_url`, in order (the same as
    providers.key_from_env); without a URL, to `provider`'s own server.

    A preset's own variable (DEEPSEEK_API_KEY, ...) only to that preset's server or an
    alias of it; any other server, a preset moved by `--base-url` included, gets
    LABWRIGHT_API_KEY only."""
    if base_url:
        return provider_for_url(base_url).key_env
    return PROVIDERS[provider].key_env if provider in PROVIDERS else GENERIC_KEY_ENV


def stored_key(provider: str) -> str | None:
    """The key kept in the OS keyring for `provider`; None without one (or a keyring)."""
    if not keyring_available():
        return None
    keyring = _keyring()
    try:
        return keyring.get_password(KEYRING_SERVICE, provider) or None
    except keyring.errors.KeyringError:
        return None  # a locked or broken keyring: the environment may still help


def resolve_key(
    provider: str, base_url: str | None = None, env: Mapping[str, str] | None = None
) -> tuple[str | None, str]:
    """(key, where) for `provider`: where is "environment:NAME", "keyring" or "none".

    The environment wins over the keyring (as everywhere in this order); `--api-key`
    is the caller's, above both.
    """
    env = os.environ if env is None else env
    for name in key_env_names(provider, base_url):
        value = env.get(name)
        if value:
            return value, f"environment:{name}"
    key = stored_key(provider)
    if key:
        return key, "keyring"
    return None, "none"


def get_api_key(provider: str, base_url: str | None = None) -> tuple[str | None, str]:
    """(key, where): the lookup a run makes (environment, then keyring), for the app."""
    return resolve_key(provider, base_url)


def set_api_key(provider: str, key: str | None) -> None:
    """Store `key` for `provider` in the OS keyring; None or "" forgets it."""
    if not keyring_available():
        raise KeyStoreError(_NO_KEYRING)
    keyring = _keyring()
    try:
        if key:
            keyring.set_password(KEYRING_SERVICE, provider, key)
        else:
            # nothing stored: forgetting it is already done
            with contextlib.suppress(keyring.errors.PasswordDeleteError):
                keyring.delete_password(KEYRING_SERVICE, provider)
    except keyring.errors.KeyringError as e:
        # The backend's own words help (e.g. "collection is locked"); scrub the key anyway.
        detail = str(e).replace(key, "***") if key else str(e)
        raise KeyStoreError(
            f"The system keyring refused the change ({type(e).__name__}: {detail[:200]}). "
            "Unlock the keyring and try again, or set LABWRIGHT_API_KEY instead."
        ) from None


def mask_key(key: str | None) -> str:
    """A recognisable fragment of a key, never the whole: "sk-…f3a9"; "" for no key."""
    if not key:
        return ""
    if len(key) < 12:
        return "…" + key[-2:] if len(key) >= 6 else "…"  # short keys: too little to show
    return f"{key[:3]}…{key[-4:]}"
