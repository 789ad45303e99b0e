"""Transcript bodies in object storage (SPEC R-12): stored whole, read back byte for byte."""

from __future__ import annotations

import contextlib
import hashlib
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage


class TranscriptBodyMissing(Exception):
    """The transcript's body object is gone: an explicit error, never an empty text."""


class StorageUnavailable(Exception):
    """Object storage could not be reached or refused the request: an explicit error, never empty text."""


class TranscriptBodyCorrupt(Exception):
    """The stored body no longer matches the digest recorded when it was written."""


_MISSING_CODES = {"404", "NoSuchKey", "NotFound"}


# SPEC R-12 (home)
def _storage_errors(path: str) -> AbstractContextManager[None]:
    """Translate backend errors into the two the product speaks: missing, or unavailable."""
    try:
        from botocore.exceptions import BotoCoreError, ClientError
    except ImportError:  # file storage only
        return contextlib.nullcontext()

    @contextlib.contextmanager
    def translate() -> Iterator[None]:
        try:
            yield
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code in _MISSING_CODES:
                raise TranscriptBodyMissing(path) from exc
            raise StorageUnavailable(f"object storage refused {path}: {code}") from exc
        except BotoCoreError as exc:
            raise StorageUnavailable(f"object storage unreachable for {path}") from exc

    return translate()


def body_store(*, owner_id: int, data: bytes) -> tuple[str, int, str]:
    """Store ``data`` under a new name; return (path, size, sha256)."""
    name = f"transcripts/{owner_id}/{uuid.uuid4().hex}.json"
    with _storage_errors(name):
        path = default_storage.save(name, ContentFile(data))
    return path, len(data), hashlib.sha256(data).hexdigest()


def body_read(*, path: str, sha256: str) -> bytes:
    try:
        with _storage_errors(path), default_storage.open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError as exc:
        raise TranscriptBodyMissing(path) from exc
    except OSError as exc:
        raise StorageUnavailable(f"cannot read {path}: {exc.strerror}") from exc
    if hashlib.sha256(data).hexdigest() != sha256:
        raise TranscriptBodyCorrupt(path)
    return data


def body_size(*, path: str) -> int:
    """The stored object's size in bytes, from its metadata (no body transfer); ``TranscriptBodyMissing`` if gone."""
    try:
        with _storage_errors(path):
            return default_storage.size(path)
    except FileNotFoundError as exc:
        raise TranscriptBodyMissing(path) from exc
    except OSError as exc:
        raise StorageUnavailable(f"cannot stat {path}: {exc.strerror}") from exc


def body_delete(*, path: str) -> None:
    with _storage_errors(path):
        default_storage.delete(path)
