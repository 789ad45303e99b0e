"""A person whose every kind of content carries a marker string, and a walk of every admin page looking for them.

SPEC AD-2: staff without a reveal see none of the markers anywhere in admin.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from django import forms
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Permission
from django.test import Client, RequestFactory
from django.urls import NoReverseMatch, reverse

from apps.agents.services import run_start
from apps.consent.services import proposal_submit, shares_set
from apps.consent.services.access import access_event_record
from apps.memory.services import (
    calendar_event_create,
    contact_create,
    digest_create,
    episode_create,
    fact_create,
    intent_create,
    todo_create,
    transcript_create,
    voice_memo_create,
)
from apps.staff.masking import PersonalAdmin
from tests.accounts.factors import verified_login
from tests.agents.builders import make_agent
from tests.consent.factories import make_connection

WHEN = datetime(2026, 5, 25, 2, 0, tzinfo=UTC)


def mark(name: str) -> str:
    """A string that occurs nowhere but where it was planted (letters only: no escaping changes it)."""
    return f"Qzv{name}Wq"


MARKERS = {
    name: mark(name) for name in (
        "factlabel", "factvalue", "factevidence", "sharedlabel", "sharedvalue",
        "proposallabel", "proposalvalue", "proposalevidence",
        "transcripttitle", "speaker", "transcriptbody",
        "eventtitle", "eventlocation", "eventnotes", "todotitle", "todonotes",
        "contactname", "contactalias", "contactrelation", "contactnotes",
        "episodetitle", "episodesummary", "episodetopic", "participant",
        "memotitle", "memotext", "digestsummary", "intentaction", "intentpayload",
    )
}


@dataclass
class Planted:
    person: object
    other: object
    records: dict = field(default_factory=dict)


def plant(person, other) -> Planted:
    """One record of every kind the person keeps, each text a marker; ``other`` keeps unmarked ones."""
    m = MARKERS
    fact = fact_create(owner=person, category="health", label=m["factlabel"], value=m["factvalue"],
                       evidence=m["factevidence"])
    shared = fact_create(owner=person, category="basic", label=m["sharedlabel"], value=m["sharedvalue"])
    connection = make_connection(person)
    shares_set(connection=connection, fact_ids={shared.pk})
    proposal = proposal_submit(connection=connection, arguments={
        "op": "add", "category": "basic", "label": m["proposallabel"], "value": m["proposalvalue"],
        "evidence": m["proposalevidence"],
    })
    access_event_record(connection=connection, tool="get_context", facts=[(shared.pk, shared.version)],
                        refs=["todo:1"])
    transcript = transcript_create(owner=person, title=m["transcripttitle"], recorded_at=WHEN, segments=[
        {"speaker": m["speaker"], "start_ms": 0, "end_ms": 4000, "text": m["transcriptbody"]},
    ])
    event = calendar_event_create(owner=person, title=m["eventtitle"], starts_at=WHEN,
                                  ends_at=WHEN + timedelta(hours=1), location=m["eventlocation"],
                                  notes=m["eventnotes"], reminders=[15])
    todo = todo_create(owner=person, title=m["todotitle"], notes=m["todonotes"], due_at=WHEN + timedelta(days=2))
    contact = contact_create(owner=person, display_name=m["contactname"], aliases=[m["contactalias"]],
                             relation=m["contactrelation"], notes=m["contactnotes"])
    episode = episode_create(owner=person, title=m["episodetitle"], occurred_at=WHEN, summary=m["episodesummary"],
                             topics=[m["episodetopic"]], participants=[{"display_name": m["participant"]}],
                             transcript=transcript, calendar_event=event, todos=[todo])
    memo = voice_memo_create(owner=person, title=m["memotitle"], text=m["memotext"], recorded_at=WHEN)
    digest = digest_create(owner=person, period="week", period_start=date(2026, 5, 25), period_end=date(2026, 5, 31),
                           summary=m["digestsummary"], episodes=[episode])
    intent = intent_create(owner=person, action=m["intentaction"], target_ref=f"todo:{todo.pk}",
                           payload={"note": m["intentpayload"]})
    run_start(policy=make_agent(), user_id=person.pk, thread_id="thread-1")
    # The other person's rows share the lists: a reveal of one person shows nobody else's content.
    fact_create(owner=other, category="basic", label="Name", value="Bob")
    return Planted(person, other, {
        "fact": fact, "shared": shared, "connection": connection, "proposal": proposal, "transcript": transcript,
        "event": event, "todo": todo, "contact": contact, "episode": episode, "memo": memo, "digest": digest,
        "intent": intent,
    })


def staff_without_reveal(django_user_model):
    """A staff member with every permission admin has, except revealing personal content."""
    staff = django_user_model.objects.create_user("support", "support@example.com", "support-password",
                                                  is_staff=True)
    staff.user_permissions.set(Permission.objects.exclude(codename="reveal_personal_content"))
    return staff


def login(user) -> Client:
    if user.is_staff:
        return verified_login(Client(), user)  # staff give a second factor before the admin opens (SPEC AD-3)
    client = Client()
    client.force_login(user)
    return client


def found(body: str, markers=None) -> list[str]:
    lowered = body.lower()
    return [name for name, marker in (markers or MARKERS).items() if marker.lower() in lowered]


def _url(model, action: str, *args) -> str | None:
    try:
        return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{action}", args=args)
    except NoReverseMatch:
        return None


@dataclass
class Walk:
    """Every page visited and every marker seen on it."""

    pages: int = 0
    leaks: list[tuple[str, list[str]]] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    searches: list[tuple[str, str, int]] = field(default_factory=list)  # (url, marker, rows found)
    refused: list[tuple[str, int]] = field(default_factory=list)  # lists, filters and pages that did not answer 200

    def look(self, url: str, response, *, echo: str = "") -> None:
        self.pages += 1
        body = response.content.decode(errors="replace")
        if echo:
            body = re.sub(re.escape(echo), "", body, flags=re.IGNORECASE)  # the search box repeats the query
        names = found(body)
        self.seen.update(names)
        if names:
            self.leaks.append((url, names))


def walk(client: Client, staff, *, models=None, actions: bool = True, search: bool = True) -> Walk:
    """GET every admin page Django registers, filter and search every list, run the actions; collect markers.

    ``models``: only these models' pages (the planted-fault test); the index pages are always walked.
    """
    seen = Walk()
    for url in ("/admin/", reverse("admin:staff_accessrecord_reveal")):
        seen.look(url, client.get(url, follow=True))
    registry = {m: a for m, a in admin.site._registry.items() if models is None or m in models}
    for app_label in sorted({m._meta.app_label for m in registry}):
        url = reverse("admin:app_list", args=[app_label])
        seen.look(url, client.get(url, follow=True))
    for model, model_admin in registry.items():
        changelist = _url(model, "changelist")
        response = client.get(changelist, follow=True)
        seen.look(changelist, response)
        context = response.context or {}
        cl = context.get("cl") if hasattr(context, "get") else None
        if cl is not None:
            for spec in cl.filter_specs:  # every choice of every filter
                for choice in spec.choices(cl):
                    url = changelist + choice["query_string"]
                    response = client.get(url, follow=True)
                    seen.look(url, response)
                    if response.status_code != 200:
                        seen.refused.append((url, response.status_code))
            if search and isinstance(model_admin, PersonalAdmin):
                for marker in MARKERS.values():
                    searched = client.get(changelist, {"q": marker})
                    seen.look(f"{changelist}?q={marker}", searched, echo=marker)
                    rows = searched.context["cl"].result_count if searched.context else 0
                    seen.searches.append((changelist, marker, rows))
        for url in (_url(model, "add"),):
            if url:
                seen.look(url, client.get(url, follow=True))
        for pk in model._default_manager.values_list("pk", flat=True):
            for action in ("change", "history", "delete"):
                url = _url(model, action, pk)
                if url:
                    response = client.get(url, follow=True)
                    seen.look(url, response)
                    if action != "delete" and response.status_code != 200:
                        seen.refused.append((url, response.status_code))
        if actions:
            request = RequestFactory().get(changelist)
            request.user = staff
            pks = [str(pk) for pk in model._default_manager.values_list("pk", flat=True)]
            for name in model_admin.get_actions(request) if pks else ():
                # delete_selected without "post" only asks to confirm; every other action runs.
                response = client.post(changelist, {"action": name, ACTION_CHECKBOX_NAME: pks}, follow=True)
                seen.look(f"{changelist} action {name}", response)
    return seen


def submitted(form) -> dict:
    """What a browser sends back for ``form`` untouched: each field's shown value."""
    data = {}
    for bound in form:
        value, widget = bound.value(), bound.field.widget
        if isinstance(widget, forms.MultiWidget):
            parts = widget.decompress(value)
            for index, (sub, part) in enumerate(zip(widget.widgets, parts, strict=True)):
                data[f"{bound.html_name}_{index}"] = sub.format_value(part) or ""
        elif isinstance(widget, forms.CheckboxInput):
            if value:
                data[bound.html_name] = "on"
        elif value is not None:
            data[bound.html_name] = value
    return data


def change_pages(client: Client, planted: Planted) -> str:
    """The change pages of every record of the planted person, as one text."""
    bodies = []
    for record in planted.records.values():
        url = _url(type(record), "change", record.pk)
        bodies.append(client.get(url).content.decode())
    bodies.append(client.get(_url(type(planted.records["fact"]), "changelist")).content.decode())
    return "\n".join(bodies)
