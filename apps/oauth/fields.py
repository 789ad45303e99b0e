"""A column that keeps only the SHA-256 of what it is given (SPEC A-4)."""

from __future__ import annotations

import hashlib
from typing import Any

from django.db import models


class StoredHash(str):
    """A value read back from the column: already a hash, never hashed again."""


def sha256_hex(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


# SPEC A-4 (home)
class HashedSecretField(models.CharField):
    """Hash on the way in, for writes and lookups alike: library lookups work, the raw code is never stored."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 64)
        super().__init__(*args, **kwargs)

    def from_db_value(self, value: str | None, expression: object, connection: object) -> StoredHash | None:
        return None if value is None else StoredHash(value)

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        if value is None or isinstance(value, StoredHash):
            return value
        return sha256_hex(value)
