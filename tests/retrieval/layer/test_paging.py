"""Long records: fragments, cursors, byte budget, storage (SPEC R-9, R-10, R-12)."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.agents.services import policy_grant_set
from apps.memory import services, storage
from apps.memory.models import Transcript
from apps.retrieval.layer import LayerError
from apps.retrieval.layer.registry import registry
from tests.retrieval.layer.builders import OPS, T0, access, call, read_all, reassemble

pytestmark = pytest.mark.django_db

PAGE_BYTES = 65_536  # SPEC R-9: fixed by the spec, not read from the code under test

# Characters that cost 1, 2 (escaped), 3 (CJK), 4 (emoji) and 6 (escaped control) bytes of JSON.
ALPHABET = "abc xyz 提醒方案评审决定先做本地推送 \"quote\" back\\slash\nnew line \u2028 😀🎉 \x07 é ß"


def _segments(total_bytes: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    segments, size, offset = [], 0, 0
    while size < total_bytes:
        n = rng.choice((5, 40, 200, 900, 4000))
        text = "".join(rng.choice(ALPHABET) for _ in range(n))
        segments.append({"speaker": rng.choice(["林若溪", "Alex", "王小明"]), "start_ms": offset,
                         "end_ms": offset + 1000, "text": text})
        offset += 1000
        size += len(text.encode())
    # One segment far longer than a page: it must be split across pages.
    segments.append({"speaker": "Alex", "start_ms": offset, "end_ms": offset + 1, "text": "长" * 150_000})
    return segments


def _page_bytes(page: dict) -> int:
    return len(json.dumps(page, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def test_a_5mb_transcript_reads_completely_and_byte_for_byte(user):  # SPEC R-9, R-10, R-12
    segments = _segments(5 * 1024 * 1024)
    transcript = services.transcript_create(owner=user, title="All-hands", recorded_at=T0, segments=segments)
    stored = storage.body_read(path=transcript.body_path, sha256=transcript.body_sha256)
    assert len(stored) > 5 * 1024 * 1024

    doc, pages = read_all(access(user), f"transcript:{transcript.pk}")

    assert len(pages) > 80
    assert all(_page_bytes(page) <= PAGE_BYTES for page in pages)
    assert [page["complete"] for page in pages] == [False] * (len(pages) - 1) + [True]
    assert pages[-1]["next_cursor"] is None and all(page["next_cursor"] for page in pages[:-1])
    body = json.dumps({"segments": doc["segments"]}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    assert body == stored
    assert doc["title"] == "All-hands" and doc["speakers"] == sorted({"Alex", "王小明", "林若溪"})
    split = [f for page in pages for f in page["fragments"] if f["path"] == f"/segments/{len(segments) - 1}/text"]
    assert len(split) > 1 and split[-1]["end"] == split[-1]["length"] == 150_000


def test_a_short_record_is_whole_in_one_answer(user):  # SPEC R-9
    transcript = services.transcript_create(owner=user, title="short", recorded_at=T0,
                                            segments=[{"speaker": "A", "start_ms": 0, "end_ms": 1, "text": "hi"}])
    page = call(access(user), "read", ref=f"transcript:{transcript.pk}")
    assert page["complete"] is True and page["next_cursor"] is None
    assert page["data"]["segments"] == [{"speaker": "A", "start_ms": 0, "end_ms": 1, "text": "hi"}]


def test_a_missing_body_is_an_explicit_error(user):  # SPEC R-12
    transcript = services.transcript_create(owner=user, title="lost", recorded_at=T0, segments=_segments(100_000))
    first = call(access(user), "read", ref=f"transcript:{transcript.pk}")
    storage.body_delete(path=transcript.body_path)
    for cursor in (first["next_cursor"], None):  # the next page, and a fresh read
        with pytest.raises(LayerError) as refused:
            call(access(user), "read", ref=f"transcript:{transcript.pk}", **({"cursor": cursor} if cursor else {}))
        assert refused.value.code == "body_missing"
    # Its metadata is still readable to whoever is not asking for the body.
    meta = access(user, {"transcript": {"operations": OPS, "fields": ["/title"]}})
    assert call(meta, "read", ref=f"transcript:{transcript.pk}")["data"] == {"title": "lost"}


def test_unreachable_storage_is_an_explicit_error(user, monkeypatch):  # SPEC R-12
    transcript = services.transcript_create(owner=user, title="far", recorded_at=T0, segments=_segments(100_000))
    first = call(access(user), "read", ref=f"transcript:{transcript.pk}")

    def unreachable(*, path, **_):
        raise storage.StorageUnavailable(f"object storage unreachable for {path}")

    monkeypatch.setattr("apps.retrieval.layer.resources.transcript.body_size", unreachable)
    monkeypatch.setattr(storage, "body_read", unreachable)
    for cursor in (first["next_cursor"], None):  # a body already kept in memory, and one asked for afresh
        if cursor is None:
            Transcript.objects.filter(pk=transcript.pk).update(body_sha256="0" * 64)  # not the one kept
        with pytest.raises(LayerError) as refused:
            call(access(user), "read", ref=f"transcript:{transcript.pk}", **({"cursor": cursor} if cursor else {}))
        assert refused.value.code == "storage_unavailable" and refused.value.http_status == 503


def test_a_source_changed_between_pages_is_an_explicit_error(user):  # SPEC R-10
    transcript = services.transcript_create(owner=user, title="long", recorded_at=T0, segments=_segments(200_000))
    acc = access(user)
    first = call(acc, "read", ref=f"transcript:{transcript.pk}")
    Transcript.objects.filter(pk=transcript.pk).update(title="renamed", updated_at=T0)
    with pytest.raises(LayerError) as refused:
        call(acc, "read", ref=f"transcript:{transcript.pk}", cursor=first["next_cursor"])
    assert (refused.value.code, refused.value.pointer) == ("source_changed", "/cursor")


def test_withdrawing_a_field_mid_read_hides_it_on_the_next_page(user, agent):  # SPEC R-4, R-10
    from apps.agents.services import run_access, run_start

    transcript = services.transcript_create(owner=user, title="long", recorded_at=T0, segments=_segments(300_000))
    run = run_start(policy=agent, user_id=user.pk, thread_id="t-1")
    acc = run_access(policy=agent, run_id=run.run_id, thread_id="t-1")
    first = call(acc, "read", ref=f"transcript:{transcript.pk}")
    assert any(f["path"].endswith("/speaker") for f in first["fragments"])

    policy_grant_set(policy=agent, resource="transcript", operations=OPS,
                     fields=["/title", "/segments/*/text", "/segments/*/start_ms"])
    acc = run_access(policy=agent, run_id=run.run_id, thread_id="t-1")
    pages = [call(acc, "read", ref=f"transcript:{transcript.pk}", cursor=first["next_cursor"])]
    while pages[-1]["next_cursor"]:
        pages.append(call(acc, "read", ref=f"transcript:{transcript.pk}", cursor=pages[-1]["next_cursor"]))
    later = [f for page in pages for f in page["fragments"]]
    assert later and not any(f["path"].endswith(("/speaker", "/end_ms")) for f in later)
    kept = {"/title", "/segments/*/text", "/segments/*/start_ms"}
    assert pages[0]["withheld"] == sorted(set(registry.get("transcript").declaration.leaves) - kept)
    doc = reassemble(first["fragments"] + later)
    assert all("text" in segment for segment in doc["segments"])

    # Growing the grant back within the snapshot does not silently widen a read already under way.
    policy_grant_set(policy=agent, resource="transcript", operations=OPS, fields=["*"])
    acc = run_access(policy=agent, run_id=run.run_id, thread_id="t-1")
    with pytest.raises(LayerError) as refused:
        call(acc, "read", ref=f"transcript:{transcript.pk}", cursor=pages[0]["next_cursor"] or first["next_cursor"])
    assert refused.value.code == "fields_changed"


# --- Paging a long body costs what each page holds (SPEC R-9, R-10, R-12) ------------------------------

def _read_pages(acc, ref: str) -> list[dict]:
    pages = [call(acc, "read", ref=ref)]
    while pages[-1]["next_cursor"]:
        pages.append(call(acc, "read", ref=ref, cursor=pages[-1]["next_cursor"]))
    return pages


def _body_of(pages: list[dict]) -> bytes:
    doc = reassemble([f for page in pages for f in page["fragments"]])
    return json.dumps({"segments": doc["segments"]}, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def test_pages_reassemble_byte_for_byte_with_the_body_kept_and_interleaved(user):  # SPEC R-9, R-10
    transcript = services.transcript_create(owner=user, title="kept", recorded_at=T0, segments=_segments(400_000))
    stored = storage.body_read(path=transcript.body_path, sha256=transcript.body_sha256)
    ref = f"transcript:{transcript.pk}"
    cold = _read_pages(access(user), ref)
    warm = _read_pages(access(user), ref)  # every page served from the body kept in memory
    assert _body_of(cold) == _body_of(warm) == stored
    assert [p["fragments"] for p in cold] == [p["fragments"] for p in warm]
    # Two readers of the same record, page for page in turn, each get their own whole body.
    a, b = [call(access(user), "read", ref=ref)], [call(access(user, caller="agent:test/run:2"), "read", ref=ref)]
    while a[-1]["next_cursor"] or b[-1]["next_cursor"]:
        if a[-1]["next_cursor"]:
            a.append(call(access(user), "read", ref=ref, cursor=a[-1]["next_cursor"]))
        if b[-1]["next_cursor"]:
            b.append(call(access(user, caller="agent:test/run:2"), "read", ref=ref, cursor=b[-1]["next_cursor"]))
    assert _body_of(a) == _body_of(b) == stored
    assert all(_page_bytes(page) <= PAGE_BYTES for page in a + b)


def test_a_body_replaced_between_pages_is_refused_even_when_kept(user):  # SPEC R-10, R-12
    transcript = services.transcript_create(owner=user, title="long", recorded_at=T0, segments=_segments(300_000))
    ref = f"transcript:{transcript.pk}"
    acc = access(user)
    first = call(acc, "read", ref=ref)
    second = call(acc, "read", ref=ref, cursor=first["next_cursor"])  # the body is now kept
    # Another body under the same row, the row's metadata (updated_at) untouched.
    replacement = json.dumps({"segments": _segments(300_000, seed=99)}, ensure_ascii=False,
                             separators=(",", ":")).encode("utf-8")
    path, size, digest = storage.body_store(owner_id=user.pk, data=replacement)
    Transcript.objects.filter(pk=transcript.pk).update(body_path=path, body_bytes=size, body_sha256=digest)
    with pytest.raises(LayerError) as refused:
        call(acc, "read", ref=ref, cursor=second["next_cursor"])
    assert (refused.value.code, refused.value.pointer) == ("source_changed", "/cursor")
    # A fresh read answers the new body, never the one kept.
    assert _body_of(_read_pages(acc, ref)) == replacement


def test_a_kept_body_rewritten_in_place_or_deleted_is_refused_on_the_next_page(user):  # SPEC R-12
    transcript = services.transcript_create(owner=user, title="long", recorded_at=T0, segments=_segments(300_000))
    ref = f"transcript:{transcript.pk}"
    acc = access(user)
    first = call(acc, "read", ref=ref)
    second = call(acc, "read", ref=ref, cursor=first["next_cursor"])
    from django.core.files.storage import default_storage

    with default_storage.open(transcript.body_path, "wb") as handle:
        handle.write(b'{"segments":[]}')
    with pytest.raises(LayerError) as refused:
        call(acc, "read", ref=ref, cursor=second["next_cursor"])
    assert refused.value.code == "body_corrupt"
    storage.body_delete(path=transcript.body_path)
    with pytest.raises(LayerError) as refused:
        call(acc, "read", ref=ref, cursor=second["next_cursor"])
    assert refused.value.code == "body_missing"


def test_a_run_ended_or_narrowed_mid_read_counts_on_the_next_page(user, agent):  # SPEC R-4, R-10
    from apps.agents.services import run_access, run_end, run_start

    transcript = services.transcript_create(owner=user, title="long", recorded_at=T0, segments=_segments(300_000))
    ref = f"transcript:{transcript.pk}"
    run = run_start(policy=agent, user_id=user.pk, thread_id="t")
    page = call(run_access(policy=agent, run_id=run.run_id, thread_id="t"), "read", ref=ref)
    page = call(run_access(policy=agent, run_id=run.run_id, thread_id="t"), "read", ref=ref,
                cursor=page["next_cursor"])  # the body is kept from here on
    policy_grant_set(policy=agent, resource="transcript", operations=["list"], fields=["*"])
    with pytest.raises(LayerError) as refused:
        call(run_access(policy=agent, run_id=run.run_id, thread_id="t"), "read", ref=ref, cursor=page["next_cursor"])
    assert refused.value.code == "operation_not_permitted"
    policy_grant_set(policy=agent, resource="transcript", operations=OPS, fields=["*"])
    page = call(run_access(policy=agent, run_id=run.run_id, thread_id="t"), "read", ref=ref,
                cursor=page["next_cursor"])
    run_end(policy=agent, run_id=run.run_id, thread_id="t")
    with pytest.raises(LayerError) as refused:
        run_access(policy=agent, run_id=run.run_id, thread_id="t")
    assert refused.value.code == "run_ended"


@pytest.mark.parametrize("body_bytes", [200_000, 2_000_000])
def test_sql_statements_per_page_do_not_grow_with_the_body(user, agent, body_bytes):  # SPEC R-9
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.agents.services import run_access, run_start

    transcript = services.transcript_create(owner=user, title="long", recorded_at=T0,
                                            segments=_segments(body_bytes))
    ref = f"transcript:{transcript.pk}"
    run = run_start(policy=agent, user_id=user.pk, thread_id="t")
    body, counts = {"ref": ref}, []
    while True:
        with CaptureQueriesContext(connection) as captured:
            page = call(run_access(policy=agent, run_id=run.run_id, thread_id="t"), "read", **body)
        counts.append(len(captured))
        if not page["next_cursor"]:
            break
        body = {"ref": ref, "cursor": page["next_cursor"]}
    # One statement for the run with its policy and grants, one for the record; the body is storage.
    assert set(counts) == {2}, counts


def test_each_page_measures_about_a_page_not_the_whole_body(user, monkeypatch):  # SPEC R-9
    from apps.retrieval.layer import documents

    transcript = services.transcript_create(owner=user, title="long", recorded_at=T0,
                                            segments=_segments(3 * 1024 * 1024))
    ref = f"transcript:{transcript.pk}"
    acc = access(user)
    cursor = call(acc, "read", ref=ref)["next_cursor"]  # the body is kept from here on
    for _ in range(20):
        cursor = call(acc, "read", ref=ref, cursor=cursor)["next_cursor"]
    encoded = []
    real = documents._encode_str
    monkeypatch.setattr(documents, "_encode_str", lambda obj: encoded.append(len(real(obj))) or real(obj))
    for body in ({"ref": ref}, {"ref": ref, "cursor": cursor}):  # the first page, a page in the middle
        encoded.clear()
        call(acc, "read", **body)
        # What one page measures is of the order of the page (the string search measures at
        # most the page again), never the 3 MB record.
        assert 0 < sum(encoded) < 4 * PAGE_BYTES, (body.keys(), sum(encoded))


# SPEC R-9: a page is packed by measuring each fragment apart; the measure must be the bytes the
# fragments encode to, whatever the text holds (quotes, backslashes, controls, CJK, emoji, surrogates).
@given(texts=st.lists(st.text(alphabet=ALPHABET + "\ud800~/", max_size=60), min_size=1, max_size=12),
       budget=st.integers(min_value=40, max_value=900))
@settings(max_examples=200, deadline=None)
def test_packing_measures_exactly_what_the_fragments_encode_to(texts, budget):
    from apps.retrieval.layer import documents

    declaration = registry.get("transcript").declaration
    doc = {"title": texts[0], "segments": [{"speaker": text, "start_ms": i, "end_ms": i + 1, "text": text}
                                           for i, text in enumerate(texts)]}
    stream = documents.units(declaration, doc, frozenset(declaration.leaves))
    packed = documents.fragment_page(stream, budget=budget)
    assert packed.used == len(documents.encode(packed.fragments)) - 2  # the brackets are not counted
    assert packed.used <= budget
