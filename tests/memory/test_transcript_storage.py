"""Transcript bodies in object storage (SPEC R-12, D-6: originals are stored whole)."""

import hashlib
import json
import os
from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage

from apps.memory import storage
from apps.memory.models import Transcript
from apps.memory.services import transcript_create
from apps.memory.services.resources import transcript_segments

pytestmark = pytest.mark.django_db

WHEN = datetime(2026, 5, 25, 2, 0, tzinfo=UTC)


def stored_files(root) -> list:
    return [os.path.join(d, f) for d, _, files in os.walk(root) for f in files]


# SPEC R-12: what goes in comes back byte for byte — every byte value, UTF-8 Chinese, CRLF, NUL.
@pytest.mark.parametrize(
    "data",
    [
        bytes(range(256)) * 4,
        "会议纪要：定价方案 🚀\r\n第二行\t制表符\x00空字符，结尾有空格   ".encode(),
        b"",
    ],
    ids=["all-bytes", "chinese", "empty"],
)
def test_body_round_trips_byte_for_byte(media_root, data):
    path, size, digest = storage.body_store(owner_id=7, data=data)
    assert (size, digest) == (len(data), hashlib.sha256(data).hexdigest())
    assert path.startswith("transcripts/7/")
    assert (media_root / path).read_bytes() == data
    assert storage.body_read(path=path, sha256=digest) == data


# SPEC R-12, D-6: a large (> 2 MB) transcript is stored and read back whole, nothing cut.
def test_large_chinese_transcript_round_trips(user, media_root):
    segments = [
        {"speaker": "林若溪" if i % 2 else "Alex", "start_ms": i * 5000, "end_ms": i * 5000 + 4800,
         "text": f"第 {i} 段：我们讨论了定价、隐私说明和发布计划。Pricing, privacy and launch — part {i}. " * 6}
        for i in range(3000)
    ]
    transcript = transcript_create(owner=user, title="长会议", segments=segments, recorded_at=WHEN)
    assert transcript.body_bytes > 2 * 1024 * 1024
    on_disk = (media_root / transcript.body_path).read_bytes()
    assert len(on_disk) == transcript.body_bytes
    assert hashlib.sha256(on_disk).hexdigest() == transcript.body_sha256
    assert json.loads(on_disk) == {"segments": segments}
    assert transcript_segments(Transcript.objects.get(pk=transcript.pk)) == segments
    assert (transcript.segment_count, transcript.duration_seconds) == (3000, (2999 * 5000 + 4800) // 1000)
    assert transcript.speakers == ["Alex", "林若溪"]


# SPEC R-12: text comes back exactly as given — no trimming, no normalization.
def test_segment_text_is_not_normalized(user):
    text = "  前后空格  \r\n全角１２３ and ﬁ ligature, e\u0301 combining  "
    transcript = transcript_create(owner=user, title="原样保存", recorded_at=WHEN,
                                   segments=[{"speaker": "A", "start_ms": 0, "end_ms": 1, "text": text}])
    assert transcript_segments(transcript)[0]["text"] == text


# SPEC R-12: a missing object is an explicit error, never an empty text.
def test_missing_body_raises(user):
    transcript = transcript_create(owner=user, title="会被删掉的", recorded_at=WHEN,
                                   segments=[{"speaker": "A", "start_ms": 0, "end_ms": 1000, "text": "你好"}])
    default_storage.delete(transcript.body_path)
    with pytest.raises(storage.TranscriptBodyMissing):
        transcript_segments(transcript)


# SPEC R-12: a body that no longer matches its digest is an error too, not silently different text.
def test_changed_body_raises(user, media_root):
    transcript = transcript_create(owner=user, title="被改过的", recorded_at=WHEN,
                                   segments=[{"speaker": "A", "start_ms": 0, "end_ms": 1000, "text": "原文"}])
    (media_root / transcript.body_path).write_bytes(b'{"segments":[]}')
    with pytest.raises(storage.TranscriptBodyCorrupt):
        transcript_segments(transcript)


# SPEC R-12: if the row cannot be saved, the object written for it is removed again.
def test_failed_row_leaves_no_object(user, media_root):
    with pytest.raises(ValidationError):
        transcript_create(owner=user, title="x" * 201, recorded_at=WHEN,
                          segments=[{"speaker": "A", "start_ms": 0, "end_ms": 1000, "text": "孤儿文件"}])
    assert not Transcript.objects.exists()
    assert stored_files(media_root) == []


# SPEC R-12: every transcript gets its own object, even with identical content.
def test_each_transcript_has_its_own_object(user, media_root):
    segments = [{"speaker": "A", "start_ms": 0, "end_ms": 1000, "text": "同样的内容"}]
    first = transcript_create(owner=user, title="一", segments=segments, recorded_at=WHEN)
    second = transcript_create(owner=user, title="二", segments=segments, recorded_at=WHEN)
    assert first.body_path != second.body_path
    assert len(stored_files(media_root)) == 2
