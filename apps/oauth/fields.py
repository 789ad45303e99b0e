"""A column that keeps only the SHA-256 of what it is given (SPEC A-4)."""

from __future__ import annotations

import hashlib

from django.db import models


class StoredHash(str):
    """A value read back from the column: already a hash, never hashed again."""


def sha256_hex(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


# SPEC A-4 (home)
class HashedSecretField(models.CharField):
    """Hash on the way in, for writes and for lookups alike.

    ``Grant.objects.get(code=raw)`` therefore compares hashes, so the library
    code that looks codes up keeps working while the raw code is never stored.
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("max_length", 64)
        super().__init__(*args, **kwargs)

    def from_db_value(self, value, expression, connection):
        return None if value is None else StoredHash(value)

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        if value is None or isinstance(value, StoredHash):
            return value
        return sha256_hex(value)
