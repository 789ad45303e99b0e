"""Builders for consent tests: an assistant client, a connection, shared facts."""

from __future__ import annotations

from oauth2_provider.models import get_application_model

from apps.consent import scopes
from apps.consent.services import connection_authorize, shares_set
from apps.memory.models import Category
from apps.memory.services import fact_create

ALL_SCOPES = set(scopes.ALL)


def make_application(name: str = "Helpful Assistant", redirect_uri: str = "http://127.0.0.1:9999/callback"):
    return get_application_model().objects.create(
        name=name,
        client_type="public",
        authorization_grant_type="authorization-code",
        redirect_uris=redirect_uri,
        hash_client_secret=False,
        client_secret="",
    )


def make_connection(user, *, application=None, scopes=ALL_SCOPES, categories=None):
    return connection_authorize(
        user=user,
        application=application or make_application(),
        scopes=set(scopes),
        categories=set(Category.shareable() if categories is None else categories),
    )


def make_fact(owner, **overrides):
    fields = {"category": "preferences", "label": "Tea", "value": "Green tea in the afternoon", "evidence": "told me"}
    fields.update(overrides)
    return fact_create(owner=owner, **fields)


def share(connection, *facts):
    shares_set(connection=connection, fact_ids={f.pk for f in facts})
