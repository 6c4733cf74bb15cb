"""An in-memory keyring backend, so tests never touch the real OS keyring.

with installed(MemoryKeyring()) as kr:
    set_api_key("deepseek", "sk-...")
    assert kr.store[("labwright", "deepseek")] == "sk-..."
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import keyring
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    priority = 100  # above any real backend, should keyring go looking

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.store.pop((service, username), None) is None:
            raise PasswordDeleteError("no such password")


@contextmanager
def installed(backend: KeyringBackend) -> Iterator[KeyringBackend]:
    """Make `backend` the keyring for the block, then put the previous one back."""
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)
