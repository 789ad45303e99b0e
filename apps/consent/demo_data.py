"""The demo person at real sizes (SPEC W-6): connected assistants, shares, suggestions and access history.

Design notes: docs/design.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from oauth2_provider.models import get_application_model

from apps.consent.memory_items import SLOT_LABELS
from apps.consent.models import AccessEvent, Connection, NoticeSettings, Proposal
from apps.consent.selectors.notices import notice_settings
from apps.consent.selectors.visibility import shareable_facts
from apps.consent.services import (
    ProposalError,
    access_event_record,
    connection_authorize,
    notice_settings_save,
    proposal_ignore,
    proposal_submit,
    shares_set,
)
from apps.consent.services.imports import ImportResult, memories_import
from apps.consent.slot_words import slot_of
from apps.memory.models import Category, Fact, FactStatus

PENDING_AT_MOST = 100  # SPEC P-8: what one connection may hold waiting
EVENTS = 60  # access events of the first assistant (three pages of history)
SCOPES = {"profile:read", "profile:propose", "profile:correct", "context:search"}
HABITS = ["Walks to work", "Reads before bed", "Drinks green tea", "Cycles on Sundays", "Plays the piano",
          "Cooks on weekends", "Learns Spanish", "Swims on Fridays", "Keeps a diary", "Stretches every morning"]


@dataclass
class AssistantsSeeded:
    assistants: int = 0
    suggestions_added: int = 0
    events_added: int = 0


def _application(owner, number: int):
    application_model = get_application_model()
    client_id = f"demo-{owner.pk}-{number}"
    application = application_model.objects.filter(client_id=client_id).first()
    if application is None:
        application = application_model.objects.create(
            client_id=client_id, name=f"Demo assistant {number}", client_type="public",
            authorization_grant_type="authorization-code", redirect_uris=f"http://127.0.0.1:9{number:03d}/callback",
            hash_client_secret=False, client_secret="",
        )
    return application


def _suggestion(number: int) -> dict:
    habit = HABITS[number % len(HABITS)]
    return {"op": "add", "category": "habits", "label": f"{habit} #{number + 1}"[:40],
            "value": f"Suggested from a conversation: {habit.lower()}, noted as number {number + 1}.",
            "evidence": "Mentioned it in passing."}


def _suggest(connection: Connection, count: int) -> int:
    """``count`` suggestions from ``connection``: the first ones ignored, the last 100 at most waiting."""
    added = 0
    ignored = max(0, count - PENDING_AT_MOST)
    for number in range(count):
        before = Proposal.objects.filter(connection=connection).count()
        try:
            proposal = proposal_submit(connection=connection, arguments=_suggestion(number))
        except ProposalError:  # decided on an earlier run (duplicate_processed): it is there
            continue
        added += Proposal.objects.filter(connection=connection).count() - before
        if number < ignored and proposal.status == Proposal.Status.PENDING:
            proposal_ignore(proposal=proposal, user=connection.user)
    return added


@transaction.atomic
def seed_assistants(*, owner, assistants: int, suggestions: int) -> AssistantsSeeded:
    seeded = AssistantsSeeded(assistants=assistants)
    connections = []
    for number in range(1, assistants + 1):
        connection = connection_authorize(user=owner, application=_application(owner, number), scopes=SCOPES,
                                          categories=set(Category.shareable()))
        ids = list(shareable_facts(connection=connection).values_list("id", flat=True))
        shares_set(connection=connection, fact_ids=set(ids[number - 1::number]))  # all, half, a third …
        connections.append(connection)
    if not connections:
        return seeded
    first = connections[0]
    seeded.suggestions_added = _suggest(first, suggestions)
    sent = list(shareable_facts(connection=first).values_list("id", "version")[:40])
    for _ in range(EVENTS - AccessEvent.objects.filter(connection=first).count()):
        access_event_record(connection=first, tool="get_user_context", facts=sent)
        seeded.events_added += 1
    return seeded


def seed_notices(*, owner) -> None:
    """The demo person's e-mail choices: no digest (SPEC W-7); the rest as the defaults, address as it is.

    Written only when the digest is not already off, so a second run rewrites nothing."""
    chosen = notice_settings(user=owner)
    if chosen.pk is None or chosen.digest != NoticeSettings.Digest.OFF:
        notice_settings_save(user=owner, digest=NoticeSettings.Digest.OFF, expiry_notice=chosen.expiry_notice,
                             email=owner.email, language=chosen.language or settings.LANGUAGE_CODE)


# SPEC P-9, P-10: what the demo person brings from another assistant. Its first two items are made from one of
# their facts whose slot the table knows: another value (a contradiction: shown as a change) and the same value
# under the slot's name in the other language (a restatement: already known); then new memories, one said twice.
DEMO_CHANGES = {"pronouns": "they/them", "timezone": "Europe/Berlin (UTC+1)", "hometown": "Suzhou",
                "language": "Mandarin and French", "birthday": "October 3", "name": "Ruoxi"}
DEMO_IMPORT = """Here's what I remember about you:

**About you**
{items}
- Prefers written updates over calls.
- Is training for the Shanghai half marathon in April.
- 每周日晚上和父母视频通话。

**Preferences**
- Prefers written updates over calls.
- Likes film photography and develops her own rolls.

Let me know if you'd like me to update or forget any of these.
"""


def seed_import(*, owner) -> ImportResult:
    """The demo import (SPEC P-10), idempotent: an import said again adds nothing (``memories_import``)."""
    items = []
    basics = Fact.objects.filter(owner=owner, category=Category.BASIC, status=FactStatus.ACTIVE).order_by("id")
    found = next(((f, slot) for f in basics.only("label", "value") if (slot := slot_of(f.label)) in DEMO_CHANGES),
                 None)
    if found is not None:
        fact, slot = found
        english, chinese = SLOT_LABELS[slot]
        other = chinese if fact.label.isascii() else english
        items = [f"- {fact.label}: {DEMO_CHANGES[slot]}", f"- {other}: {fact.value}"]
    return memories_import(user=owner, data=DEMO_IMPORT.format(items="\n".join(items)).encode())
