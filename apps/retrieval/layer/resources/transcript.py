"""``transcript``: speaker-segmented text; the body is read whole from object storage (SPEC R-12)."""

import hashlib
import threading
from collections import OrderedDict

from apps.memory.models import Transcript
from apps.memory.services.resources import transcript_segments
from apps.memory.storage import StorageUnavailable, TranscriptBodyCorrupt, TranscriptBodyMissing, body_size
from apps.retrieval.layer.adapters import ModelAdapter
from apps.retrieval.layer.declarations import ALL_FIELDS, Declaration, Field, Filter
from apps.retrieval.layer.errors import LayerError
from apps.retrieval.layer.registry import registry
from apps.retrieval.layer.resources._common import TIMESTAMPS, UPDATED_FILTERS

DECLARATION = Declaration(
    type="transcript",
    description="What was said, word for word: segments with speaker and time offsets.",
    fields=(
        Field("/title", "string", searchable=True),
        Field("/language", "string"),
        Field("/recorded_at", "timestamp"),
        Field("/duration_seconds", "integer"),
        Field("/speakers", "array"),
        Field("/speakers/*", "string"),
        Field("/segments", "array", in_list=False, description="the whole body; read it page by page"),
        Field("/segments/*", "object"),
        Field("/segments/*/speaker", "string"),
        Field("/segments/*/start_ms", "integer"),
        Field("/segments/*/end_ms", "integer"),
        Field("/segments/*/text", "text", searchable=True),
        *TIMESTAMPS,
    ),
    filters=(
        Filter("recorded_after", "timestamp", field="/recorded_at", lookup="recorded_at__gte"),
        Filter("recorded_before", "timestamp", field="/recorded_at", lookup="recorded_at__lt"),
        Filter("language", "string", field="/language", lookup="language"),
        *UPDATED_FILTERS,
    ),
    readable={"internal": ALL_FIELDS},  # never external (SPEC R-11)
    title="/title",
    order="/recorded_at",
    rank_weight=0.04,
)


class _RecentBodies:
    """The last few bodies read, as segment lists, keyed by (object path, SHA-256): one fetch for all pages.

    The object's metadata is still checked on every read. The lists are shared: never change them.
    """

    def __init__(self, entries: int = 4, max_body_bytes: int = 16 * 1024 * 1024) -> None:
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()
        self._entries, self._max_body_bytes = entries, max_body_bytes

    def get(self, transcript) -> list[dict]:
        key = (transcript.body_path, transcript.body_sha256)
        with self._lock:
            segments = self._items.get(key)
            if segments is not None:
                self._items.move_to_end(key)
        if segments is not None and body_size(path=transcript.body_path) != transcript.body_bytes:
            raise TranscriptBodyCorrupt(transcript.body_path)  # rewritten in place: no longer what was read
        if segments is None:
            segments = _shaped(transcript_segments(transcript))
            if transcript.body_bytes <= self._max_body_bytes:
                with self._lock:
                    self._items[key] = segments
                    while len(self._items) > self._entries:
                        self._items.popitem(last=False)
        return segments

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def _shaped(segments: list[dict]) -> list[dict]:
    """The stored segments as the declaration reads them (missing keys filled in)."""
    return [
        {"speaker": s.get("speaker", ""), "start_ms": s.get("start_ms"), "end_ms": s.get("end_ms"),
         "text": s.get("text", "")}
        for s in segments
    ]


_bodies = _RecentBodies()


class TranscriptAdapter(ModelAdapter):
    model = Transcript

    def field_segments(self, transcript):
        ref = f"transcript:{transcript.pk}"
        try:
            return _bodies.get(transcript)
        except TranscriptBodyMissing:
            raise LayerError("body_missing", f"the body of {ref} is missing from storage") from None
        except TranscriptBodyCorrupt:
            raise LayerError("body_corrupt", f"the body of {ref} does not match its digest") from None
        except StorageUnavailable:
            raise LayerError("storage_unavailable", f"object storage could not be reached for {ref}; "
                             "try again in a moment") from None

    def source_version(self, transcript) -> str:
        # The body is part of the record: a replaced object is a changed source.
        base = super().source_version(transcript)
        return hashlib.sha256(f"{base}|{transcript.body_sha256}".encode()).hexdigest()[:32]


registry.register(DECLARATION, TranscriptAdapter())
