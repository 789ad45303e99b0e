"""The in-process half of the load run: set up people and assistants, count rows, render pages.

    python -m bench.load.django_side setup N B    → JSON of N connected assistants on stdout, every
                                                     other one with B suggestions already waiting
    python -m bench.load.django_side counts       → JSON of the row counts the checks compare
    python -m bench.load.django_side pages        → the person's pages, rendered, on stdout
    python -m bench.load.django_side history seed → JSON: access events recorded in the past, in a period
                                                     wholly past the retention and in one within it
    python -m bench.load.django_side history count NAME…
                                                  → JSON: access events in all and in each named period
    python -m bench.load.django_side history tasks
                                                  → once a line arrives on stdin, the access history's two
                                                     periodic tasks (next partitions, retention); JSON

Run by ``bench.load.run`` with the server's environment (the same database).
Assistants connect through the real OAuth flow (registration, consent page,
PKCE code exchange) via Django's test client, so the secrets they hold are
exactly what real assistants hold.
"""

from __future__ import annotations

import json
import os
import sys

USERNAME = "load-person"
PASSWORD = "load-password-not-secret"
FACTS = 30


def _django():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]


def setup(count: int, backlog: int) -> dict:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from apps.consent.models import Connection
    from apps.consent.services import proposal_submit, shares_set
    from apps.memory.services import fact_create
    from tests.oauth import flow as oauth_flow

    person = get_user_model().objects.create_user(username=USERNAME, password=PASSWORD)
    categories = ["basic", "preferences", "habits", "goals", "work_study"]
    facts = [fact_create(owner=person, category=categories[i % 5], label=f"Load fact {i}",
                         value=f"Loaded value {i}: tea, walks and reading", evidence="load", sensitive=False)
             for i in range(FACTS)]
    browser = Client(headers={"accept-language": "en"})
    browser.force_login(person)
    assistants = []
    for index in range(count):
        assistant = Client()
        flow = oauth_flow.registered(assistant)
        # context:search is offered but never pre-ticked (SPEC A-5): the person ticks it.
        oauth_flow.code_from(oauth_flow.approve(browser, flow, extra=[("scopes", "context:search")]), flow)
        response = oauth_flow.exchange(assistant, flow)
        assert response.status_code == 200, response.content
        connection = Connection.objects.get(user=person, application__client_id=flow.client_id)
        shares_set(connection=connection, fact_ids={fact.pk for fact in facts})
        # Suggestions a person has not got round to yet: every other assistant starts near the cap (SPEC P-8).
        waiting = [str(proposal_submit(connection=connection, arguments={
            "op": "add", "category": "preferences", "label": f"Backlog {index}-{number}",
            "value": f"Waiting value {number}"}).pk) for number in range(backlog if index % 2 == 0 else 0)]
        assistants.append({
            "index": index,
            "client_id": flow.client_id,
            "connection_id": connection.pk,
            "access_token": flow.tokens[0]["access_token"],
            "refresh_token": flow.tokens[0]["refresh_token"],
            "secrets": sorted(flow.secrets_seen),
            "waiting": waiting,
        })
    return {"user_id": person.pk, "username": USERNAME, "password": PASSWORD, "facts": FACTS,
            "assistants": assistants}


def counts() -> dict:
    from apps.consent.models import AccessEvent, Proposal

    return {
        "proposals": Proposal.objects.count(),
        "access_events": AccessEvent.objects.count(),
        "access_events_by_tool": dict(sorted(
            (tool, AccessEvent.objects.filter(tool=tool).count())
            for tool in AccessEvent.objects.values_list("tool", flat=True).distinct())),
        "proposal_ids": sorted(str(pk) for pk in Proposal.objects.values_list("pk", flat=True)),
        # What each decided suggestion became, and whether a confirmed one left its fact (SPEC P-6).
        "decided": {str(pk): [status, fact_id is not None] for pk, status, fact_id in
                    Proposal.objects.exclude(status="pending").values_list("pk", "status", "result_fact_id")},
    }


def pages() -> str:
    from django.contrib.auth import get_user_model
    from django.test import Client

    from apps.consent.models import Connection

    person = get_user_model().objects.get(username=USERNAME)
    browser = Client(headers={"accept-language": "en"})
    browser.force_login(person)
    urls = ["/me/facts/", "/me/assistants/", "/me/export/"]
    urls += [f"/me/assistants/{pk}/" for pk in Connection.objects.filter(user=person).values_list("pk", flat=True)]
    staff = get_user_model().objects.create_superuser(username="load-staff", password="x", email="s@example.com")
    admin = Client()
    admin.force_login(staff)
    admin_urls = ["/admin/oauth2_provider/accesstoken/", "/admin/oauth2_provider/refreshtoken/",
                  "/admin/oauth2_provider/application/", "/admin/consent/connection/", "/admin/consent/proposal/",
                  "/admin/consent/accessevent/"]
    out = []
    for client, url in [(browser, url) for url in urls] + [(admin, url) for url in admin_urls]:
        response = client.get(url)
        out.append(f"=== {url} {response.status_code}\n{response.content.decode('utf-8', 'replace')}")
    return "\n".join(out)


# --- the access history's partitions (SPEC D-8) ------------------------------------------------------------

SEEDED_PER_PERIOD = 400  # access events recorded in each seeded period, spread over the person's connections


def history_seed() -> dict:
    """Access events from the past, recorded by the product's own service with its clock moved back.

    Two periods: the one before the period holding the retention cutoff (wholly past it: the retention drops
    it) and the one holding a moment 200 days ago (within the retention: kept). The write path makes each
    missing partition itself (SPEC M-11), as it would for a period nobody prepared.
    """
    from datetime import timedelta

    from django.contrib.auth import get_user_model

    from apps.common import clock
    from apps.consent import partitions, services
    from apps.consent.models import Connection
    from apps.consent.selectors.access import access_retention_cutoff
    from apps.memory.models import Fact

    person = get_user_model().objects.get(username=USERNAME)
    links = list(Connection.objects.filter(user=person).order_by("pk"))
    facts = list(Fact.objects.filter(owner=person).order_by("pk").values_list("pk", "version"))
    seeded = {}
    for role, start in (("dropped", partitions.period_of(access_retention_cutoff() - partitions.SPAN)),
                        ("kept", partitions.period_of(clock.now() - timedelta(days=200)))):
        step = partitions.SPAN / SEEDED_PER_PERIOD
        times = []
        for number in range(SEEDED_PER_PERIOD):
            moment = (start + step * number + timedelta(minutes=1)).replace(microsecond=0)
            link = links[number % len(links)]
            with clock.frozen_at(moment):
                services.access_event_record(connection=link, tool="get_user_context",
                                             facts=facts[number % len(facts):][:3])
            times.append((link.pk, moment))
        first = links[0].pk
        seeded[role] = {"name": partitions.name_of(start), "start": start.isoformat(), "events": len(times),
                        # what the first connection's history shows last (oldest), as its page writes it
                        "oldest_of_first": min(m for c, m in times if c == first).isoformat(),
                        "newest_of_first": max(m for c, m in times if c == first).isoformat(),
                        "first_connection": first}
    return seeded


def history_count(names: list[str]) -> dict:
    """Access events in all, in each named period (whether or not it still has its partition), the partitions."""
    from django.db import connection

    from apps.consent import partitions
    from apps.consent.models import AccessEvent

    periods = {}
    for name in names:
        start = partitions.start_of(name)
        within = AccessEvent.objects.filter(created_at__gte=start, created_at__lt=start + partitions.SPAN)
        periods[name] = within.count()
    return {"total": AccessEvent.objects.count(), "periods": periods,
            "attached": [p.name for p in partitions.attached(connection)]}


def history_tasks() -> dict:
    """The access history's two periodic tasks, as Celery beat runs them, when told to (a line on stdin).

    ``consent.access_partitions_ensure`` with the clock one period ahead (the run that makes the next
    partition: on the day it comes due), then ``ops.access_events_prune`` at the real time (the retention,
    ACCESS_EVENT_RETENTION_DAYS). Django is set up before the signal, so only the tasks fall in the window.
    """
    import time

    from django.db import connection

    from apps.common import clock
    from apps.consent import partitions, tasks

    before = [p.name for p in partitions.attached(connection)]
    print("ready", flush=True)
    sys.stdin.readline()
    started = time.monotonic()
    with clock.frozen_at(clock.now() + partitions.SPAN):
        created = tasks.access_partitions_ensure.apply().get()
    ensured = time.monotonic()
    dropped = tasks.access_events_prune.apply().get()
    pruned = time.monotonic()
    return {"attached_before": before, "created": created, "dropped": dropped,
            "attached_after": [p.name for p in partitions.attached(connection)],
            "ensure_seconds": round(ensured - started, 3), "prune_seconds": round(pruned - ensured, 3)}


def main(argv: list[str]) -> None:
    _django()
    command = argv[0]
    if command == "setup":
        print(json.dumps(setup(int(argv[1]), int(argv[2]))))
    elif command == "counts":
        print(json.dumps(counts()))
    elif command == "pages":
        sys.stdout.write(pages())
    elif command == "history" and argv[1:2] == ["seed"]:
        print(json.dumps(history_seed()))
    elif command == "history" and argv[1:2] == ["count"]:
        print(json.dumps(history_count(argv[2:])))
    elif command == "history" and argv[1:2] == ["tasks"]:
        print(json.dumps(history_tasks()), flush=True)
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
