"""Periodic work: access-event pruning, token purge, the beat schedule (SPEC J-1, J-2)."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection as db_connection
from django.utils import timezone

from apps.common import clock
from apps.consent import services, tasks
from apps.consent.models import AccessEvent
from apps.oauth import services as oauth_services
from apps.ops.locks import _lock_key
from tests.ops.conftest import make_connection, make_events

pytestmark = pytest.mark.django_db


def _removed(events):
    """What the prune returns for these events: on PostgreSQL the partitions they were in, on SQLite the rows."""
    from apps.consent import partitions

    if partitions.partitioned():
        return len({partitions.period_of(event.created_at) for event in events})
    return len(events)


def _period_start(moment):
    from apps.consent import partitions

    return partitions.period_of(moment)


# SPEC J-1, D-8: access events older than the cut-off go, newer ones stay; the cut-off itself stays. On
# PostgreSQL whole partitions go: events of the period the cut-off falls in stay until it has passed.
def test_prune_deletes_only_events_before_the_cutoff(user, frozen_clock):
    from apps.consent import partitions

    now = clock.now()
    cutoff = now - timedelta(days=365)
    connection = make_connection(user)
    old = make_events(connection, ages_in_days=[400, 366, 365.01], now=now)
    kept = make_events(connection, ages_in_days=[365, 364, 1, 0], now=now)

    deleted = services.access_events_prune(older_than=cutoff, batch_size=2)

    remaining = set(AccessEvent.objects.values_list("pk", flat=True))
    if partitions.partitioned():
        straddling = {e.pk for e in old if e.created_at >= _period_start(cutoff)}
        assert straddling and straddling != {e.pk for e in old}
        assert remaining == {e.pk for e in kept} | straddling
        assert deleted == 1  # the period of the event 400 days old
    else:
        assert deleted == len(old)
        assert remaining == {e.pk for e in kept}


# SPEC J-1: running it again changes nothing (idempotent).
def test_prune_twice_is_harmless(user, frozen_clock):
    now = clock.now()
    old = make_events(make_connection(user), ages_in_days=[60, 90], now=now)
    make_events(old[0].connection, ages_in_days=[1], now=now)
    first = services.access_events_prune(older_than=now - timedelta(days=7))
    assert first == _removed(old)
    assert services.access_events_prune(older_than=now - timedelta(days=7)) == 0
    assert AccessEvent.objects.count() == 1


# SPEC J-1: the task reads ACCESS_EVENT_RETENTION_DAYS and the product clock.
def test_prune_task_uses_the_configured_retention(user, frozen_clock, settings):
    settings.ACCESS_EVENT_RETENTION_DAYS = 30
    now = clock.now()
    connection = make_connection(user)
    old = make_events(connection, ages_in_days=[70, 120], now=now)
    recent = make_events(connection, ages_in_days=[29], now=now)

    assert tasks.access_events_prune.apply().get() == _removed(old)
    assert list(AccessEvent.objects.values_list("pk", flat=True)) == [recent[0].pk]


# SPEC J-2: retention holds before the prune has run: the person's history and download leave out what
# is older than ACCESS_EVENT_RETENTION_DAYS (the local default schedules no prune at all).
def test_events_past_retention_are_not_shown_before_the_prune(user, frozen_clock, settings):
    from apps.consent.selectors.access import access_history
    from apps.consent.services.export import export_for

    settings.ACCESS_EVENT_RETENTION_DAYS = 30
    connection = make_connection(user)
    make_events(connection, ages_in_days=[31, 395], now=clock.now())
    recent = make_events(connection, ages_in_days=[29], now=clock.now())
    assert [event.pk for event in access_history(connection=connection)] == [recent[0].pk]
    assert len(export_for(user=user)["assistants"][0]["access_history"]) == 1
    assert AccessEvent.objects.count() == 3  # nothing deleted by reading


# SPEC J-1: a run that finds another in progress (the lock held elsewhere) does nothing.
@pytest.mark.postgres_only
def test_prune_skips_while_another_run_holds_the_lock(user, django_db_blocker):
    import psycopg

    now = timezone.now()
    old = make_events(make_connection(user), ages_in_days=[50, 60], now=now)
    params = db_connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    params.pop("prepare_threshold", None)
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(%s)", [_lock_key("ops.access_events_prune")])
        assert services.access_events_prune(older_than=now - timedelta(days=7)) == 0
        assert AccessEvent.objects.count() == 2
        other.execute("SELECT pg_advisory_unlock(%s)", [_lock_key("ops.access_events_prune")])
    assert services.access_events_prune(older_than=now - timedelta(days=7)) == _removed(old)
    assert AccessEvent.objects.count() == 0


# SPEC J-1, D-8: two runs at the same moment together drop each stale partition exactly once, each detaching
# concurrently (in autocommit, as the scheduled task runs).
@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_prunes_delete_each_event_once(user):
    from django.db import connections

    from apps.consent import partitions

    now = timezone.now()
    connection = make_connection(user)
    make_events(connection, ages_in_days=[100 + 7 * i for i in range(20)], now=now)
    kept = make_events(connection, ages_in_days=[1], now=now)
    stale = [p for p in partitions.attached(db_connection) if p.end <= now - timedelta(days=7)]
    assert len(stale) >= 4
    start, results, errors = threading.Barrier(2), [], []

    def run():
        try:
            start.wait()
            results.append(services.access_events_prune(older_than=now - timedelta(days=7), batch_size=3))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors
    assert sorted(results) == [0, len(stale)]  # one run dropped the stale partitions, the other found nothing to do
    assert list(AccessEvent.objects.values_list("pk", flat=True)) == [kept[0].pk]
    assert all(p.end > now - timedelta(days=7) for p in partitions.attached(db_connection))


# SPEC J-1, D-8, I-1: the retention comes from the environment, default 400 days, never zero.
def test_retention_setting_from_environment(settings_for):
    assert settings_for({})["ACCESS_EVENT_RETENTION_DAYS"] == 400
    assert settings_for({"ACCESS_EVENT_RETENTION_DAYS": "30"})["ACCESS_EVENT_RETENTION_DAYS"] == 30
    assert settings_for({"ACCESS_EVENT_RETENTION_DAYS": "36500"})["ACCESS_EVENT_RETENTION_DAYS"] == 36500
    with pytest.raises(ImproperlyConfigured):
        settings_for({"ACCESS_EVENT_RETENTION_DAYS": "0"})


# SPEC O-2, J-2: a retention meant as "for ever" is refused at start-up. The cut-off is computed on every read
# of the history (and by the prune); one that reaches past year 1 cannot be a date, and every connection page,
# download and prune would fail instead.
@pytest.mark.parametrize("days", ["36501", "1000000", "999999999"])
def test_retention_past_a_century_is_refused(settings_for, days):
    with pytest.raises(ImproperlyConfigured, match="ACCESS_EVENT_RETENTION_DAYS"):
        settings_for({"ACCESS_EVENT_RETENTION_DAYS": days})


# SPEC J-2: the longest retention allowed still gives a cut-off every read can use.
def test_longest_retention_reads_and_prunes(user, settings):
    from apps.consent.selectors.access import access_history

    settings.ACCESS_EVENT_RETENTION_DAYS = 36500
    connection = make_connection(user)
    kept = make_events(connection, ages_in_days=[3650], now=clock.now())
    assert [event.pk for event in access_history(connection=connection)] == [kept[0].pk]
    assert tasks.access_events_prune.apply().get() == 0


# SPEC J-1: Redis is broker and result store when configured; tasks run inline otherwise.
def test_celery_broker_follows_redis_url(settings_for):
    local = settings_for({})
    assert local["CELERY_TASK_ALWAYS_EAGER"] is True
    assert local["CELERY_BROKER_URL"] == "memory://"
    production = settings_for({"REDIS_URL": "redis://redis.internal:6379/0"})
    assert production["CELERY_TASK_ALWAYS_EAGER"] is False
    assert production["CELERY_BROKER_URL"] == production["CELERY_RESULT_BACKEND"] == "redis://redis.internal:6379/0"
    assert production["CACHES"]["default"]["BACKEND"] == "apps.common.cache.RedisCache"


def _celery_app(names: dict):
    """A Celery app configured as ``config.celery`` configures it, from these settings."""
    from types import SimpleNamespace

    from celery import Celery

    app = Celery("lifeos-test", set_as_current=False)
    app.config_from_object(SimpleNamespace(**{k: v for k, v in names.items() if k.startswith("CELERY_")}),
                           namespace="CELERY")
    return app


# SPEC O-2, J-1: with a TLS Redis (rediss://, as docs/deploy.md allows) the broker verifies the server's
# certificate like the cache does — Celery's own default is to skip the check (open to a man in the middle)
# — and the result store starts at all (Celery refuses a rediss:// URL without a certificate policy).
def test_celery_over_tls_redis_verifies_the_certificate(settings_for):
    import ssl

    names = settings_for({"REDIS_URL": "rediss://:pw@redis.internal:6380/0"})
    app = _celery_app(names)
    with app.connection_for_write() as broker:
        assert broker.ssl == {"ssl_cert_reqs": ssl.CERT_REQUIRED}
    assert app.backend.connparams["ssl_cert_reqs"] == ssl.CERT_REQUIRED

    # A policy the URL states itself is the operator's choice, and kept.
    names = settings_for({"REDIS_URL": "rediss://redis.internal:6380/0?ssl_cert_reqs=CERT_OPTIONAL"})
    assert _celery_app(names).backend.connparams["ssl_cert_reqs"] == ssl.CERT_OPTIONAL
    assert "CELERY_BROKER_USE_SSL" not in names

    plain = settings_for({"REDIS_URL": "redis://redis.internal:6379/0"})
    assert "CELERY_BROKER_USE_SSL" not in plain and "CELERY_REDIS_BACKEND_USE_SSL" not in plain


# SPEC J-1: every scheduled task exists, so beat never sends a name no worker knows.
def test_beat_schedule_names_registered_tasks(settings):
    from config.celery import app

    app.loader.import_default_modules()
    scheduled = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert {"ops.access_events_prune", "ops.oauth_tokens_purge", "ops.proposals_expire",
            "retrieval.rebuild_search_projection", "consent.access_partitions_ensure",
            "consent.notices_digest", "consent.notices_expiry"} <= scheduled  # SPEC W-7, D-8
    assert scheduled <= set(app.tasks), scheduled - set(app.tasks)


def _proposal(connection, label, *, created, status):
    """A proposal written as it stands, with the 30 days of SPEC P-5 from ``created``."""
    from apps.consent.models import Proposal

    return Proposal.objects.create(
        owner_id=connection.user_id, connection=connection, op="add", category="basic", label=label, value="v",
        status=status,
        fingerprint=label, created_at=created, expires_at=created + timedelta(days=30),
    )


# SPEC J-1, P-5: the sweep records pending proposals past their expiry as expired, and only those.
def test_proposal_expiry_task(user, frozen_clock):
    pytest.importorskip("apps.consent.services.proposals", reason="the consent proposal services are not here yet")
    from apps.consent.models import Proposal

    connection = make_connection(user)
    now = clock.now()

    def proposal(label, *, created_days_ago, status="pending"):
        return _proposal(connection, label, created=now - timedelta(days=created_days_ago), status=status)

    due = proposal("due", created_days_ago=31)
    exactly_due = proposal("exactly", created_days_ago=30)
    fresh = proposal("fresh", created_days_ago=29)
    ignored = proposal("ignored", created_days_ago=40, status="ignored")

    assert tasks.proposals_expire.apply().get() == 2
    assert tasks.proposals_expire.apply().get() == 0
    statuses = dict(Proposal.objects.values_list("label", "status"))
    assert statuses == {"due": "expired", "exactly": "expired", "fresh": "pending", "ignored": "ignored"}
    assert {due.pk, exactly_due.pk, fresh.pk, ignored.pk} == set(Proposal.objects.values_list("pk", flat=True))


def _tokens(user, application, *, revoked_ago_days):
    from oauth2_provider.models import get_refresh_token_model

    now = timezone.now()
    return get_refresh_token_model().objects.create(
        user=user, application=application, token=f"refresh-{revoked_ago_days}", access_token=None,
        revoked=now - timedelta(days=revoked_ago_days),
    )


# SPEC J-1, A-3: the purge removes dead codes and tokens but keeps every revoked refresh
# token younger than the family lifetime, which refresh-reuse detection still needs.
def test_token_purge_keeps_what_reuse_detection_needs(user):
    from oauth2_provider.models import get_access_token_model, get_grant_model, get_refresh_token_model

    application = make_connection(user).application
    now = timezone.now()
    recent = _tokens(user, application, revoked_ago_days=29)
    _tokens(user, application, revoked_ago_days=31)
    live_access = get_access_token_model().objects.create(
        user=user, application=application, token="live-access", expires=now + timedelta(minutes=5),
        scope="profile:read",
    )
    get_access_token_model().objects.create(
        user=user, application=application, token="dead-access", expires=now - timedelta(minutes=1),
        scope="profile:read",
    )
    grant_fields = {"user": user, "application": application, "redirect_uri": "https://assistant.example/callback",
                    "scope": "profile:read", "code_challenge": "x" * 43, "code_challenge_method": "S256"}
    live_grant = get_grant_model().objects.create(code="live-code", expires=now + timedelta(minutes=4), **grant_fields)
    get_grant_model().objects.create(code="dead-code", expires=now - timedelta(minutes=1), **grant_fields)

    assert oauth_services.oauth_tokens_purge() is True
    assert oauth_services.oauth_tokens_purge() is True  # again: nothing more to do, no error

    assert list(get_refresh_token_model().objects.values_list("pk", flat=True)) == [recent.pk]
    assert list(get_access_token_model().objects.values_list("pk", flat=True)) == [live_access.pk]
    assert list(get_grant_model().objects.values_list("pk", flat=True)) == [live_grant.pk]


# SPEC A-3: a keep-window shorter than the family lifetime would break reuse detection: refuse.
def test_token_purge_refuses_a_short_keep_window(settings):
    settings.OAUTH2_PROVIDER = {**settings.OAUTH2_PROVIDER, "REFRESH_TOKEN_EXPIRE_SECONDS": 24 * 3600}
    with pytest.raises(ImproperlyConfigured):
        oauth_services.oauth_tokens_purge()


# SPEC J-1, A-2: token families are forgotten only once neither refresh nor reuse detection needs them.
def test_token_purge_forgets_finished_families(user, frozen_clock):
    import uuid

    from apps.oauth.models import TokenFamily
    from apps.oauth.services import token_family_open

    application = make_connection(user).application
    old = token_family_open(family=uuid.uuid4(), user=user, application=application, code=str(uuid.uuid4()))
    frozen_clock.advance(timedelta(days=31))
    recent = token_family_open(family=uuid.uuid4(), user=user, application=application, code=str(uuid.uuid4()))
    frozen_clock.advance(timedelta(days=29))  # old: 60 days after consent, recent: 29
    oauth_services.oauth_tokens_purge()
    assert set(TokenFamily.objects.values_list("pk", flat=True)) == {old.pk, recent.pk}
    frozen_clock.advance(timedelta(seconds=1))
    oauth_services.oauth_tokens_purge()
    assert list(TokenFamily.objects.values_list("pk", flat=True)) == [recent.pk]


# SPEC J-2, A-3: the security notice of a replay ends when the purge would forget its family (60 days after
# the consent), whether or not the purge has run — the local default schedules none.
def test_replay_notice_ends_with_its_family_before_the_purge(user, frozen_clock):
    import uuid

    from apps.consent.selectors.pages import replay_notices
    from apps.oauth.models import TokenFamily
    from apps.oauth.services import RevokedReason, token_family_open, token_family_revoke

    application = make_connection(user).application
    family = token_family_open(family=uuid.uuid4(), user=user, application=application, code=str(uuid.uuid4()))
    frozen_clock.advance(timedelta(days=2))
    token_family_revoke(family=family.family, reason=RevokedReason.REFRESH_REPLAY)
    frozen_clock.advance(timedelta(days=58))  # exactly 60 days after the consent: still kept, still shown
    assert replay_notices(user=user) == {application.pk: clock.now() - timedelta(days=58)}
    frozen_clock.advance(timedelta(seconds=1))
    assert replay_notices(user=user) == {}
    assert TokenFamily.objects.exists()  # nothing deleted by reading
    oauth_services.oauth_tokens_purge()
    assert not TokenFamily.objects.exists() and replay_notices(user=user) == {}


# SPEC J-2, AD-1: staff filtering proposals by status see a pending proposal past its 30 days under
# "Expired", not "Pending", before the hourly sweep has recorded it.
def test_admin_status_filter_holds_before_the_sweep(admin_client, user, frozen_clock):
    from apps.consent.models import Proposal

    connection = make_connection(user)
    now = clock.now()

    def proposal(label, *, created_days_ago, status="pending"):
        return _proposal(connection, label, created=now - timedelta(days=created_days_ago), status=status)

    due, fresh = proposal("due-unswept", created_days_ago=30), proposal("fresh", created_days_ago=29)
    swept = proposal("swept", created_days_ago=40, status="expired")
    ignored = proposal("ignored", created_days_ago=2, status="ignored")

    def listed(status):
        page = admin_client.get("/admin/consent/proposal/", {"status": status})
        assert page.status_code == 200
        return {p.pk for p in page.context["cl"].result_list}

    assert listed("pending") == {fresh.pk}
    assert listed("expired") == {due.pk, swept.pk}
    assert listed("ignored") == {ignored.pk}
    assert Proposal.objects.get(pk=due.pk).status == "pending"  # nothing written by reading
    detail = admin_client.get(f"/admin/consent/proposal/{due.pk}/change/")
    shown = {field.field["name"]: str(field.contents())
             for fieldset in detail.context["adminform"] for line in fieldset for field in line}
    assert "status" not in shown  # the detail page says what the list says, not the stored value
    assert shown["shown_status"] == str(Proposal.Status.EXPIRED.label)
