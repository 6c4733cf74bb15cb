"""API keys: where they are kept, and the environment. No Qt here.

A key typed in Settings is kept in one of three stores, per provider (the name is the
keyring's username and the key file's name):

- "keyring": the OS keyring (service "labwright"), where there is one;
- "file": LABWRIGHT_HOME/keys/<provider>, a file only you can read (key_file.py), for a
  machine without a keyring, as `gh` keeps its token;
- "session": this process's memory only, gone when Labwright closes.

A provider has at most one stored key: storing it in one place forgets it in the others.
It is looked up in the session, then the keyring, then the file. Which key may go to
which server is decided by the server (providers.provider_for_url); resolve.py puts the
sources in their order (the environment above every store).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Mapping
from typing import Any

from labwright.core.settings import key_file
from labwright.core.settings.providers import GENERIC_KEY_ENV, PROVIDERS, provider_for_url

KEYRING_SERVICE = "labwright"
KEYRING, FILE, SESSION = "keyring", "file", "session"
LOOKUP_ORDER = (SESSION, KEYRING, FILE)


class KeyStoreError(Exception):
    """The key cannot be stored; the message says what to do instead (and never holds the key)."""


_NO_KEYRING = (
    "No system keyring is available; keep the key in a file only you can read or for "
    "this session only, or set LABWRIGHT_API_KEY (or DEEPSEEK_API_KEY / OPENAI_API_KEY)."
)

# Keys kept for this session only: provider -> key. Never written anywhere.
_session: dict[str, str] = {}
_session_lock = threading.Lock()

# What people call a keyring backend, by its module (keyring.backends.<module>).
_KEYRING_NAMES = {
    "SecretService": "Secret Service",
    "libsecret": "Secret Service",
    "kwallet": "KWallet",
    "macOS": "macOS Keychain",
    "Windows": "Windows Credential Manager",
}

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
    """Whether keys can be kept in the OS keyring (else in a file, the session or the
    environment)."""
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


def keyring_name() -> str:
    """The keyring's name as people know it ("Secret Service", "macOS Keychain", ...)."""
    from keyring.backends import chainer

    backend = _keyring().get_keyring()
    if isinstance(backend, chainer.ChainerBackend) and backend.backends:
        backend = backend.backends[0]  # the one that answers first
    module = type(backend).__module__.rpartition(".")[2]
    return _KEYRING_NAMES.get(module, type(backend).__name__)


def key_stores() -> tuple[str, ...]:
    """Where Settings can keep a key on this machine, the best first."""
    return (KEYRING, FILE, SESSION) if keyring_available() else (FILE, SESSION)


def _keyring_key(provider: str) -> str | None:
    if not keyring_available():
        return None
    keyring = _keyring()
    try:
        return keyring.get_password(KEYRING_SERVICE, provider) or None
    except keyring.errors.KeyringError:
        return None  # a locked or broken keyring: the other sources may still help


def stored_key_where(provider: str) -> tuple[str | None, str]:
    """(key, store) of the key kept for `provider`: store is "session", "keyring" or
    "file" (LOOKUP_ORDER), or (None, "none")."""
    with _session_lock:
        key = _session.get(provider)
    if key:
        return key, SESSION
    key = _keyring_key(provider)
    if key:
        return key, KEYRING
    try:
        key = key_file.read_key(provider)
    except (OSError, ValueError):  # unusable (a link, another user's...): Check Setup says why
        key = None
    if key:
        return key, FILE
    return None, "none"


def stored_key(provider: str) -> str | None:
    """The key kept for `provider` (in this session, the keyring or its file), or None."""
    return stored_key_where(provider)[0]


def resolve_key(
    provider: str, base_url: str | None = None, env: Mapping[str, str] | None = None
) -> tuple[str | None, str]:
    """(key, where) for `provider`: where is "environment:NAME", "session", "keyring",
    "file" or "none".

    The environment wins over the stored key (as everywhere in this order); `--api-key`
    is the caller's, above both.
    """
    env = os.environ if env is None else env
    for name in key_env_names(provider, base_url):
        value = env.get(name)
        if value:
            return value, f"environment:{name}"
    return stored_key_where(provider)


def get_api_key(provider: str, base_url: str | None = None) -> tuple[str | None, str]:
    """(key, where): the lookup a run makes (environment, then the stores), for the app."""
    return resolve_key(provider, base_url)


def set_api_key(provider: str, key: str | None, store: str = KEYRING) -> None:
    """Keep `key` for `provider` in `store` ("keyring", "file" or "session") and forget
    it in the others; None or "" forgets it everywhere. KeyStoreError says why not."""
    if store not in (KEYRING, FILE, SESSION):
        raise ValueError(f"not a key store: {store!r}")
    if not key:
        for other in (SESSION, KEYRING, FILE):
            _forget(provider, other)
        return
    if store == KEYRING:
        _keyring_store(provider, key)
    elif store == FILE:
        try:
            key_file.write_key(provider, key)
        except OSError as e:
            raise KeyStoreError(_file_refused(provider, e)) from None
    else:
        with _session_lock:
            _session[provider] = key
    for other in (SESSION, KEYRING, FILE):
        if other != store:
            _forget(provider, other)


def _keyring_store(provider: str, key: str) -> None:
    if not keyring_available():
        raise KeyStoreError(_NO_KEYRING)
    keyring = _keyring()
    try:
        keyring.set_password(KEYRING_SERVICE, provider, key)
    except keyring.errors.KeyringError as e:
        raise KeyStoreError(_keyring_refused(e, key)) from None


def _forget(provider: str, store: str) -> None:
    if store == SESSION:
        with _session_lock:
            _session.pop(provider, None)
    elif store == FILE:
        try:
            key_file.forget_key(provider)
        except OSError as e:
            raise KeyStoreError(_file_refused(provider, e)) from None
    elif keyring_available():
        keyring = _keyring()
        try:
            # nothing stored: forgetting it is already done
            with contextlib.suppress(keyring.errors.PasswordDeleteError):
                keyring.delete_password(KEYRING_SERVICE, provider)
        except keyring.errors.KeyringError as e:
            raise KeyStoreError(_keyring_refused(e, None)) from None


def _keyring_refused(e: Exception, key: str | None) -> str:
    # The backend's own words help (e.g. "collection is locked"); scrub the key anyway.
    detail = str(e).replace(key, "***") if key else str(e)
    return (
        f"The system keyring refused the change ({type(e).__name__}: {detail[:200]}). "
        "Unlock the keyring and try again, keep the key in a file only you can read, "
        "or set LABWRIGHT_API_KEY instead."
    )


def _file_refused(provider: str, e: OSError) -> str:
    why = e.strerror or str(e) or type(e).__name__
    where = key_file.shown_path(key_file.key_path(provider))
    return f"Could not change the key file {where} ({why})."


def forget_session_keys() -> None:
    """Forget every key kept for this session (the app's end; tests)."""
    with _session_lock:
        _session.clear()


def mask_key(key: str | None) -> str:
    """A recognisable fragment of a key, never the whole: "sk-…f3a9"; "" for no key."""
    if not key:
        return ""
    if len(key) < 12:
        return "…" + key[-2:] if len(key) >= 6 else "…"  # short keys: too little to show
    return f"{key[:3]}…{key[-4:]}"
