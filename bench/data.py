"""Benchmark data: people, their facts and shares, and assistants' tokens from the real OAuth flow.

Runs in the benchmark's own process against the throwaway database (Django
already set up). Tokens are obtained the way an assistant obtains them:
dynamic client registration, the consent page submitted by the logged-in
person, the authorization-code exchange with PKCE, and refresh grants
(``tests/oauth/flow.py`` drives the real endpoints through Django's test
client). Facts are written with the product's services for the main profile
and with ``bulk_create`` (plus their search projection rows) for the
10,000-fact profiles, which the services would take minutes to write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.conf import settings
from django.test import Client

from apps.common import clock
from apps.consent.models import Connection, FactShare
from apps.consent.services import shares_set
from apps.memory.models import Category, Fact
from apps.memory.services import fact_create
from apps.retrieval.models import SearchProjection
from apps.retrieval.registry import indexed_type
from apps.retrieval.searchable import USER_PROFILE
from tests.oauth import flow as oauth

SHAREABLE = Category.shareable()
# Every 500th fact shares one marker word: a search for one matches 20 of 10,000 facts.
MARKERS = 500

_TOPICS = (
    "green tea without sugar", "early morning runs along the river", "learning Portuguese for a trip",
    "writes backend services in Python", "prefers window seats on long flights", "reads history books",
    "cooks vegetarian dinners on weekdays", "plays the piano on Sundays", "saving for a flat",
    "answers email in batches twice a day",
)


def _host_client() -> Client:
    # The product's own host, so ALLOWED_HOSTS and the issuer are as in production.
    parts = urlsplit(settings.PUBLIC_BASE_URL)
    return Client(HTTP_HOST=parts.netloc, SERVER_PORT=str(parts.port or 80))


@dataclass
class Assistant:
    """One registered MCP client (dynamic client registration)."""

    client: Client = field(default_factory=_host_client)
    flow: oauth.Flow | None = None

    def register(self) -> Assistant:
        self.flow = oauth.registered(self.client)
        return self


@dataclass
class Grant:
    """A person's consent for an assistant, and the tokens it holds."""

    person: object
    assistant: Assistant
    flow: oauth.Flow
    refresh_token: str

    @property
    def connection(self) -> Connection:
        return Connection.objects.get(user=self.person, application__client_id=self.flow.client_id)

    def fresh_access_token(self) -> str:
        """A new access token by the refresh grant (access tokens live 10 minutes, SPEC A-2)."""
        response = oauth.refresh(self.assistant.client, self.flow, self.refresh_token)
        assert response.status_code == 200, response.content
        tokens = response.json()
        self.refresh_token = tokens["refresh_token"]
        return tokens["access_token"]


def person(username: str):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_user(username=username, password=f"{username}-password-1")


def consent(person_, assistant: Assistant) -> Grant:
    """The person approves the assistant on the consent page: every scope asked for, the five shareable categories."""
    browser = _host_client()
    browser.force_login(person_)
    flow = oauth.Flow(client_id=assistant.flow.client_id)
    # The person also ticks search, which the page never pre-ticks (SPEC A-5).
    oauth.code_from(oauth.approve(browser, flow, extra=[("scopes", "context:search")]), flow)
    response = oauth.exchange(assistant.client, flow)
    assert response.status_code == 200, response.content
    return Grant(person=person_, assistant=assistant, flow=flow, refresh_token=response.json()["refresh_token"])


def _text(index: int) -> tuple[str, str, str]:
    category = SHAREABLE[index % len(SHAREABLE)]
    label = f"Fact {index}"
    value = f"{_TOPICS[index % len(_TOPICS)].capitalize()} (note {index}, marker{index % MARKERS:03d})"
    return category, label, value


def write_facts(owner, count: int) -> list[Fact]:
    """``count`` shareable facts written by the product's services (validation, projection)."""
    facts = []
    for index in range(count):
        category, label, value = _text(index)
        facts.append(fact_create(owner=owner, category=category, label=label, value=value,
                                 evidence="said so in a conversation", sensitive=False))
    return facts


def bulk_facts(owner, count: int) -> list[Fact]:
    """``count`` shareable facts with their search projection rows, by ``bulk_create``."""
    now = clock.now()
    rows = []
    for index in range(count):
        category, label, value = _text(index)
        rows.append(Fact(owner=owner, category=category, label=label, value=value,
                         evidence="imported", created_at=now, updated_at=now))
    facts = Fact.objects.bulk_create(rows, batch_size=2000)
    declared = indexed_type(USER_PROFILE)
    SearchProjection.objects.bulk_create(
        (SearchProjection(resource_type=USER_PROFILE, record_id=fact.pk, owner_id=owner.pk, field=path,
                          text=text, updated_at=now)
         for fact in facts for path, text in declared.rows(fact).items()),
        batch_size=2000,
    )
    return facts


def share(grant: Grant, facts: list[Fact], *, bulk: bool = False) -> None:
    connection = grant.connection
    if not bulk:
        shares_set(connection=connection, fact_ids={fact.pk for fact in facts})
        return
    now = clock.now()
    FactShare.objects.bulk_create(
        (FactShare(connection=connection, fact=fact, fact_version=fact.version, shared_at=now) for fact in facts),
        batch_size=2000,
    )


def crowd(application_client_id: str, people: int, tokens_each: int = 5, facts_each: int = 5) -> None:
    """Other people of the same assistant, so the lookups on the path run against tables of realistic size.

    Each has a connection, ``tokens_each`` live access tokens and ``facts_each``
    facts; written with ``bulk_create`` (unusable passwords, random tokens).
    """
    import secrets
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from oauth2_provider.models import get_access_token_model, get_application_model, set_token_value

    application = get_application_model().objects.get(client_id=application_client_id)
    now = clock.now()
    user_model = get_user_model()
    users = user_model.objects.bulk_create(
        (user_model(username=f"crowd-{index}", password="!") for index in range(people)), batch_size=2000)
    Connection.objects.bulk_create(
        (Connection(user=user, application=application, scopes=["profile:read"], categories=SHAREABLE,
                    created_at=now, consented_at=now) for user in users), batch_size=2000)
    token_model = get_access_token_model()
    tokens = []
    for user in users:
        for _ in range(tokens_each):
            token = token_model(user=user, application=application, scope="profile:read",
                                expires=now + timedelta(minutes=10), resource=[settings.MCP_RESOURCE_URL])
            set_token_value(token, secrets.token_urlsafe(32))
            tokens.append(token)
    token_model.objects.bulk_create(tokens, batch_size=2000)
    Fact.objects.bulk_create(
        (Fact(owner=user, category=_text(index)[0], label=_text(index)[1], value=_text(index)[2],
              created_at=now, updated_at=now) for user in users for index in range(facts_each)),
        batch_size=2000)
