"""Transcript bodies in S3-compatible object storage, over real HTTP (SPEC R-12)."""

from __future__ import annotations

import hashlib
import json
import time
from datetime import UTC, datetime

import boto3
import pytest

from apps.memory import storage
from apps.memory.services import transcript_create
from apps.memory.services.resources import transcript_segments
from tests.ops.conftest import PRODUCTION_ENV
from tests.services import s3_server

pytestmark = [pytest.mark.production, pytest.mark.django_db]

BUCKET = "lifeos-media"


@pytest.fixture
def use_s3(settings, settings_for):
    """Point default storage at ``endpoint`` exactly as production settings would, and create the bucket."""

    def configure(endpoint: str):
        environ = {**PRODUCTION_ENV, "AWS_S3_ENDPOINT_URL": endpoint, "AWS_S3_REGION_NAME": "us-east-1",
                   "AWS_STORAGE_BUCKET_NAME": BUCKET, "AWS_S3_CONNECT_TIMEOUT": "2", "AWS_S3_READ_TIMEOUT": "5"}
        built = settings_for(environ)
        assert built["STORAGES"]["default"]["BACKEND"] == "storages.backends.s3.S3Storage"
        settings.STORAGES = {**settings.STORAGES, "default": built["STORAGES"]["default"]}
        client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                              aws_access_key_id=environ["AWS_ACCESS_KEY_ID"],
                              aws_secret_access_key=environ["AWS_SECRET_ACCESS_KEY"])
        client.create_bucket(Bucket=BUCKET)
        return client

    return configure


def _segments() -> list[dict]:
    # Chinese, emoji, combining marks, control characters, quotes and a body past the
    # 8 MB multipart threshold: nothing may be altered or cut on the way.
    line = "我们讨论了下周的发布计划 🚀 — naïve café \"quoted\" \\ back\\slash \t tab e\u0301 "
    return [
        {"speaker": f"S{i % 3}", "start_ms": i * 1000, "end_ms": i * 1000 + 900, "text": line * (60 + i % 7)}
        for i in range(1400)
    ]


def _transcript(user):
    return transcript_create(owner=user, title="发布会议", segments=_segments(),
                             recorded_at=datetime(2026, 5, 1, 9, 0, tzinfo=UTC))


# SPEC R-12: the body goes to the bucket and comes back byte for byte, whole.
def test_transcript_body_round_trips_through_s3(user, use_s3):
    with s3_server() as endpoint:
        client = use_s3(endpoint)
        transcript = _transcript(user)

        raw = client.get_object(Bucket=BUCKET, Key=transcript.body_path)["Body"].read()
        assert len(raw) == transcript.body_bytes > 8 * 1024 * 1024
        assert hashlib.sha256(raw).hexdigest() == transcript.body_sha256
        assert json.loads(raw.decode("utf-8"))["segments"] == _segments()
        assert transcript_segments(transcript) == _segments()


# SPEC R-12: a missing object is an explicit error, not an empty text.
def test_missing_object_is_an_explicit_error(user, use_s3):
    with s3_server() as endpoint:
        client = use_s3(endpoint)
        transcript = _transcript(user)
        client.delete_object(Bucket=BUCKET, Key=transcript.body_path)
        with pytest.raises(storage.TranscriptBodyMissing):
            transcript_segments(transcript)


# SPEC R-12: with the object store unreachable, reading fails at once with an explicit
# storage error (never empty text), and the worker reports itself not ready.
def test_unreachable_storage_is_an_explicit_error(user, use_s3, client):
    with s3_server() as endpoint:
        use_s3(endpoint)
        transcript = _transcript(user)
        assert client.get("/readyz").status_code == 200
    # the server is stopped now: its port refuses connections

    assert client.get("/readyz").status_code == 503
    started = time.monotonic()
    with pytest.raises(storage.StorageUnavailable):
        transcript_segments(transcript)
    assert time.monotonic() - started < 30  # bounded timeouts and retries: an error, not a hang
