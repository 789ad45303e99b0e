"""Transcript bodies in object storage (SPEC R-12): stored whole, read back byte for byte."""

from __future__ import annotations

import hashlib
import uuid

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage


class TranscriptBodyMissing(Exception):
    """The transcript's body object is gone: an explicit error, never an empty text."""


class TranscriptBodyCorrupt(Exception):
    """The stored body no longer matches the digest recorded when it was written."""


def body_store(*, owner_id: int, data: bytes) -> tuple[str, int, str]:
    """Store ``data`` under a new name; return (path, size, sha256)."""
    name = f"transcripts/{owner_id}/{uuid.uuid4().hex}.json"
    path = default_storage.save(name, ContentFile(data))
    return path, len(data), hashlib.sha256(data).hexdigest()


def body_read(*, path: str, sha256: str) -> bytes:
    try:
        with default_storage.open(path, "rb") as handle:
            data = handle.read()
    except (FileNotFoundError, OSError) as exc:
        raise TranscriptBodyMissing(path) from exc
    except Exception as exc:  # S3: botocore's ClientError (NoSuchKey) and friends
        if exc.__class__.__name__ in {"ClientError", "NoSuchKey"}:
            raise TranscriptBodyMissing(path) from exc
        raise
    if hashlib.sha256(data).hexdigest() != sha256:
        raise TranscriptBodyCorrupt(path)
    return data


def body_delete(*, path: str) -> None:
    default_storage.delete(path)
