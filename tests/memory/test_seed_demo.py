"""``manage.py seed_demo`` (SPEC I-2)."""

import json
import time
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.memory.models import (
    CalendarEvent,
    Category,
    Certainty,
    Contact,
    Digest,
    Episode,
    Fact,
    FactStatus,
    Intent,
    Todo,
    Transcript,
    VoiceMemo,
)
from apps.memory.services.resources import transcript_segments

pytestmark = pytest.mark.django_db

RECORD_MODELS = [Transcript, CalendarEvent, Todo, Contact, Episode, VoiceMemo, Digest, Intent]
TOOL_RESULT_LIMIT = 16 * 1024  # SPEC M-6


def seed(facts=60, username="demo", password="demo", *extra):
    out = StringIO()
    call_command("seed_demo", "--username", username, "--password", password, "--facts", str(facts), *extra, stdout=out)
    return get_user_model().objects.get(username=username), out.getvalue()


def snapshot(user):
    facts = list(Fact.objects.filter(owner=user).order_by("id").values_list(
        "id", "category", "label", "value", "evidence", "certainty", "sensitive", "status", "version", "updated_at"))
    records = {model.__name__: sorted(model.objects.filter(owner=user).values_list("id", "updated_at"))
               for model in RECORD_MODELS}
    return facts, records


def compact_json(facts) -> bytes:
    """What an assistant would be sent for these facts (SPEC M-2 shape, M-6 measure)."""
    payload = [{"id": str(f.pk), "category": f.category, "label": f.label, "value": f.value,
                "updated_at": f.updated_at.isoformat()} for f in facts]
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def shareable(user):
    return list(Fact.objects.shareable().filter(owner=user, category__in=Category.shareable()).order_by("id"))


# SPEC I-2: idempotent — a second run leaves the same rows, no duplicates, nothing rewritten.
def test_second_run_changes_nothing(settings):
    settings.DEBUG = True
    user, _ = seed(facts=40)
    before = snapshot(user)
    again, output = seed(facts=40)
    assert again.pk == user.pk
    assert snapshot(user) == before
    assert "0 created, 0 updated, 40 unchanged, 0 archived" in output
    assert get_user_model().objects.filter(username="demo").count() == 1


# SPEC I-2: exactly N facts, over all eight categories (SPEC D-2).
@pytest.mark.parametrize("count", [8, 60, 137])
def test_exactly_n_facts_over_all_categories(settings, count):
    settings.DEBUG = True
    user, _ = seed(facts=count)
    facts = Fact.objects.filter(owner=user)
    assert facts.count() == count
    assert set(facts.values_list("category", flat=True)) == set(Category.values)


# SPEC I-2: mostly confirmed, some guesses, some sensitive (SPEC D-1: by detection or by the user).
def test_mix_of_certainty_and_sensitivity(settings):
    settings.DEBUG = True
    user, _ = seed(facts=200)
    facts = Fact.objects.filter(owner=user)
    guesses = facts.filter(certainty=Certainty.GUESS).count()
    assert 0 < guesses < facts.count() / 5
    assert facts.get(label="手机号").sensitive  # detected phone number
    assert facts.get(label="身份证号").sensitive  # detected resident ID
    assert facts.get(label="过敏").sensitive  # marked by the user, nothing to detect
    assert not facts.get(label="咖啡").sensitive


# SPEC D-1: values of realistic and of near-maximum length, Chinese and English, within the limits.
def test_lengths_and_languages(settings):
    settings.DEBUG = True
    user, _ = seed(facts=2 * 60)
    facts = list(Fact.objects.filter(owner=user))
    assert max(len(f.label) for f in facts) <= 40 and max(len(f.value) for f in facts) <= 300
    assert any(len(f.value) >= 290 for f in facts)
    assert any(len(f.value) <= 30 for f in facts)
    assert any(f.label.isascii() for f in facts) and any(not f.label.isascii() for f in facts)
    assert len({f.label for f in facts}) == len(facts)  # a round suffix keeps repeated texts apart


# SPEC I-2, M-6: 50 shareable facts do not fit one 16 KiB tool result, so paging gets exercised.
def test_fifty_shareable_facts_exceed_one_tool_result(settings):
    settings.DEBUG = True
    user, _ = seed(facts=80)
    first_fifty = shareable(user)[:50]
    assert len(first_fifty) == 50
    assert len(compact_json(first_fifty)) > TOOL_RESULT_LIMIT


# SPEC O-1: the README's demo account (60 facts) already needs more than one page.
def test_default_demo_account_needs_paging(settings):
    settings.DEBUG = True
    user, _ = seed(facts=60)
    facts = shareable(user)
    assert len(facts) > 40
    assert len(compact_json(facts)) > TOOL_RESULT_LIMIT


# SPEC I-2: a smaller N archives the extras (never deletes), a larger N adds; the password follows the argument.
def test_rerun_with_other_arguments(settings):
    settings.DEBUG = True
    user, _ = seed(facts=20)
    first_ids = list(Fact.objects.filter(owner=user).order_by("id").values_list("id", flat=True))
    seed(facts=12, password="another-password")
    assert Fact.objects.filter(owner=user, status=FactStatus.ACTIVE).count() == 12
    assert list(Fact.objects.filter(owner=user, status=FactStatus.ACTIVE).order_by("id")
                .values_list("id", flat=True)) == first_ids[:12]
    assert Fact.objects.filter(owner=user, status=FactStatus.ARCHIVED).count() == 8
    user.refresh_from_db()
    assert user.check_password("another-password")
    seed(facts=20, password="another-password")
    assert Fact.objects.filter(owner=user, status=FactStatus.ACTIVE).count() == 20


# SPEC I-2: the demo content is restored through the services, bumping the version (SPEC C-2).
def test_rerun_restores_edited_demo_facts(settings):
    from apps.memory.services import fact_update

    settings.DEBUG = True
    user, _ = seed(facts=10)
    fact = Fact.objects.filter(owner=user).order_by("id").first()
    original = fact.value
    fact_update(fact=fact, value="edited by hand")
    seed(facts=10)
    fact.refresh_from_db()
    assert (fact.value, fact.version) == (original, 3)


# SPEC D-6: realistic records of the eight other types, linked as the article describes.
def test_sample_records(settings):
    settings.DEBUG = True
    user, _ = seed(facts=8)
    for model in RECORD_MODELS:
        assert model.objects.filter(owner=user).exists(), model.__name__
    meeting = Episode.objects.get(owner=user, title="产品周会：定价与发布计划")
    assert meeting.transcript.owner_id == meeting.calendar_event.owner_id == user.pk
    assert meeting.todos.count() == 3
    assert meeting.todos.filter(status=Todo.Status.DONE, completed_at__isnull=False).exists()
    segments = transcript_segments(meeting.transcript)
    assert len(segments) == meeting.transcript.segment_count > 5
    assert {"林若溪", "Alex Zhang"} <= {s["speaker"] for s in segments}
    digest = Digest.objects.get(owner=user)
    assert set(digest.episodes.all()) == set(Episode.objects.filter(owner=user))
    ref_type, ref_id = Intent.objects.filter(owner=user, target_ref__startswith="todo:").get().target_ref.split(":")
    assert Todo.objects.filter(owner=user, pk=ref_id).exists()
    assert Contact.objects.filter(owner=user, display_name="Emily Chen").exists()
    assert VoiceMemo.objects.filter(owner=user).count() == 2


# SPEC I-2: the command operators and automation rely on exits 0 whatever the configuration — with DEBUG
# off too — and says plainly that it put a known password on a deployment.
def test_runs_with_debug_off_and_warns(settings):
    settings.DEBUG = False
    err = StringIO()
    call_command("seed_demo", "--username", "demo", "--password", "demo", "--facts", "5", stdout=StringIO(),
                 stderr=err)
    assert Fact.objects.filter(owner=get_user_model().objects.get(username="demo")).count() == 5
    assert "DEBUG is off" in err.getvalue()


# SPEC I-2: N is a count.
def test_negative_count_is_refused(settings):
    settings.DEBUG = True
    with pytest.raises(CommandError):
        seed(facts=-1)


class TimedOutput(StringIO):
    """Remembers when each line was written, to see how the run's pace changes."""

    def __init__(self):
        super().__init__()
        self.times: dict[str, float] = {}

    def write(self, text):
        self.times[text.strip()] = time.monotonic()
        return super().write(text)


# SPEC I-2: a large N runs in reasonable time, reports progress, keeps its pace, and a re-run is quicker still.
# The absolute bound is loose: each fact_create validates the model's check constraints with one query
# apiece, which dominates on PostgreSQL. The pace check is what catches a run that slows as it grows.
def test_large_n(settings):
    settings.DEBUG = True
    out = TimedOutput()
    started = time.monotonic()
    call_command("seed_demo", "--username", "demo", "--password", "demo", "--facts", "2000", stdout=out)
    user = get_user_model().objects.get(username="demo")
    assert Fact.objects.filter(owner=user).count() == 2000
    first_half = out.times["facts 1000/2000"] - started
    second_half = out.times["facts 2000/2000"] - out.times["facts 1000/2000"]
    assert second_half < 2 * first_half + 5, (first_half, second_half)
    assert first_half + second_half < 300
    started = time.monotonic()
    _, output = seed(facts=2000)
    assert "2000 unchanged" in output
    assert time.monotonic() - started < 30


# SPEC W-6, I-2: the demo person at real size — assistants, shares, suggestions, history — idempotently,
# with the command's existing options unchanged.
def test_seed_demo_builds_a_person_at_real_size():
    from apps.consent.models import AccessEvent, Connection, FactShare, Proposal

    user, out = seed(40, "big", "big", "--assistants", "3", "--suggestions", "130")
    assert "3 connected assistants; 130 suggestions" in out
    connections = list(Connection.objects.filter(user=user).order_by("id"))
    assert len(connections) == 3
    shared = [FactShare.objects.filter(connection=c).count() for c in connections]
    assert shared[0] > shared[1] > shared[2] > 0
    waiting = Proposal.objects.filter(connection=connections[0], status="pending").count()
    assert waiting == 100 and Proposal.objects.filter(status="ignored").count() == 30  # SPEC P-8
    assert AccessEvent.objects.filter(connection=connections[0]).count() == 60
    before = (Proposal.objects.count(), FactShare.objects.count(), AccessEvent.objects.count())
    _, again = seed(40, "big", "big", "--assistants", "3", "--suggestions", "130")
    assert "0 suggestions and 0 access events added" in again
    assert (Proposal.objects.count(), FactShare.objects.count(), AccessEvent.objects.count()) == before
    with pytest.raises(CommandError):
        seed(5, "big", "big", "--suggestions", "3")


# SPEC S-4, I-2: the demo person's records are found by meaning, in either language, right after seeding.
@pytest.mark.usefixtures("meaning")
def test_seeded_records_are_searchable_by_meaning():
    from apps.retrieval.models import SearchProjection
    from tests.retrieval.layer.builders import access, call

    user, _ = seed(facts=20)
    assert not SearchProjection.objects.filter(owner=user, vector__isnull=True).exists()
    memo = VoiceMemo.objects.get(owner=user, title="Saturday grocery list")
    for query in ("groceries to buy", "周末买菜清单"):
        hits = call(access(user), "search", query=query, top_k=5)["hits"]
        assert f"voice_memo:{memo.pk}" in [hit["ref"] for hit in hits], query


# SPEC W-7, I-2: the demo person gets no digest of waiting suggestions, however it was set before the run.
def test_demo_digest_is_off(settings):
    from apps.consent.models import NoticeSettings
    from apps.consent.services import notice_settings_save

    settings.DEBUG = True
    user, _ = seed(facts=5)
    chosen = NoticeSettings.objects.get(user=user)
    assert chosen.digest == "off"
    notice_settings_save(user=user, digest="weekly", expiry_notice=True, email="demo@example.com", language="en")
    seed(facts=5)
    assert NoticeSettings.objects.get(user=user).digest == "off"
    written = NoticeSettings.objects.get(user=user).updated_at
    seed(facts=5)
    assert NoticeSettings.objects.get(user=user).updated_at == written  # nothing rewritten when already off
