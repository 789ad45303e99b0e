"""Assistants connect: the official MCP SDK client against the live server, the consent in a real browser.

Everything over real HTTP on loopback, nothing stubbed: the SDK's first request
is refused, it discovers the authorization server from the 401, registers
itself, sends the person's browser (headless Chromium) to the consent page,
takes the code from its loopback redirect, and reads the shared facts through
the real /mcp — in both protocol modes of the client. Then its access token
runs out, it refreshes, and a copy of an old refresh token kills the family.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from apps.common import clock
from apps.consent.models import Connection
from apps.consent.services import shares_set
from apps.memory.models import Category
from apps.oauth.models import TokenFamily
from tests.e2e.assistant import DISCOVERY_STEPS, mcp_probe
from tests.e2e.test_pages_flow import PASSWORD
from tests.mcp_server.conftest import EVIDENCE, make_fact
from tests.mcp_server.test_paging import RESULT_MAX_BYTES, compact_size
from tests.oauth.test_secrets import database_text, sha256

pytestmark = [pytest.mark.live, pytest.mark.usefixtures("compiled_catalogs")]

SHARED = 60
PROTOCOL = {"auto": "2026-07-28", "legacy": "2025-11-25"}


def profile(user) -> list:
    """60 facts of near-maximum length (label 40, value 300 characters; 3-byte UTF-8 mostly), and two never shared."""
    categories = Category.shareable()
    facts = [
        make_fact(user, i, category=categories[i % len(categories)],
                  label=f"{i:02d}" + "标签" * 19, value=f"{i:02d}" + "很长的值" * 74 + "!!")
        for i in range(SHARED)
    ]
    assert all(len(fact.label) == 40 and len(fact.value) == 300 for fact in facts)
    make_fact(user, 98, category="health", label="Allergy", value="Peanuts")
    make_fact(user, 99, category="basic", label="Not shared", value="Kept to myself")
    return facts


@pytest.mark.parametrize("mode", list(PROTOCOL))
def test_sdk_client_connects_pages_refreshes_and_loses_the_family(assistants, people, public_origin,
                                                                  transactional_db, mode):
    user = get_user_model().objects.create_user(username=f"sdk-{mode}", password=PASSWORD)
    facts = profile(user)
    person = people(user.username, prefix=f"sdk-{mode}")

    def consent_page(page):
        # SPEC: the SDK asks for the base scope the 401 named — no search, no memory reads —
        # and all of it is offered, ticked.
        offered = {box.get_attribute("value"): box.is_checked() for box in page.locator('input[name="scopes"]').all()}
        assert all(offered.values())
        assert {scope for scope, ticked in offered.items() if ticked} == {
            "profile:read", "profile:propose", "profile:correct"}
        # SPEC A-7, C-4: the self-declared name as unverified, the redirect host, the five shareable categories.
        assert page.locator("#assistant-name").inner_text() == "SDK Assistant"
        assert page.locator("#redirect-host").inner_text() == urlsplit(assistant.redirect_uri).netloc
        ticked = page.locator('input[name="categories"]:checked:not([disabled])').all()
        assert sorted(box.get_attribute("value") for box in ticked) == sorted(Category.shareable())

    person.on_consent_page = consent_page
    # The product clock stands still for the test, so the token lifetime can be stepped over below.
    with clock.frozen_at(timezone.now()):
        assistant = assistants(person.consent, mode=mode, name="SDK Assistant")

        # SPEC M-1, A-6, A-8, A-1: the first request is refused with a challenge; the client discovers the
        # protected resource from it, then the authorization server, registers, and runs the PKCE consent.
        # SPEC M-2: tools/list shows only what the token may call (search was not granted).
        assert assistant.protocol_version() == PROTOCOL[mode]
        assert assistant.tool_names() == ["get_user_context", "propose_memory", "read_user_context_page"]
        assert len(assistant.authorizations) == 1
        steps = [(e.method, e.path, e.status) for e in assistant.exchanges[:6]]
        assert steps == DISCOVERY_STEPS
        challenge = assistant.exchanges[0].challenge
        assert challenge.startswith("Bearer ")
        assert f'resource_metadata="{assistant.exchanges[1].url}"' in challenge
        authorization = urlsplit(assistant.authorizations[0])
        assert authorization.path == "/oauth/authorize/" and "code_challenge_method=S256" in authorization.query
        first = assistant.tokens
        assert first.scope.split() == ["profile:read", "profile:propose", "profile:correct"]

        # SPEC C-3: consent shares nothing by itself.
        assert assistant.context()["facts"] == []

        # The person shares the sixty facts for this assistant.
        connection = Connection.objects.get(user=user)
        assert connection.application.client_id == assistant.client_id
        shares_set(connection=connection, fact_ids={fact.pk for fact in facts})

        # SPEC M-6, M-7, C-1, C-8: paging reaches every shared fact exactly once, each result within
        # 16 KiB and 50 facts; nothing unshared, no evidence.
        pages = assistant.pages()
        assert len(pages) > 2
        assert pages[0]["summary"]["fact_count"] == SHARED
        for result in pages:
            assert len(result["facts"]) <= 50
            assert compact_size(result) <= RESULT_MAX_BYTES
            assert result["version"] == pages[0]["version"]
            assert EVIDENCE not in str(result)
        sent = Counter(fact["id"] for result in pages for fact in result["facts"])
        assert sent == Counter(str(fact.pk) for fact in facts)
        assert {fact["value"] for result in pages for fact in result["facts"]} == {fact.value for fact in facts}
        assert pages[-1]["has_more"] is False and pages[-1]["next_offset"] is None

        # SPEC A-2: the access token lives 10 minutes.
        assert mcp_probe(public_origin, first.access_token).status_code == 200
        clock.advance(timedelta(minutes=9, seconds=59))
        assert mcp_probe(public_origin, first.access_token).status_code == 200
        clock.advance(timedelta(seconds=2))
        assert mcp_probe(public_origin, first.access_token).status_code == 401

        # SPEC A-3: the client refreshes (its clock says the token ran out too) and goes on, without asking
        # the person again; the refresh rotated both tokens and retired the old access token.
        assistant.lapse()
        done = len(assistant.exchanges)
        assert assistant.context()["version"] == pages[0]["version"]
        refreshed = assistant.tokens
        assert len(assistant.authorizations) == 1
        assert [(e.method, e.path, e.status) for e in assistant.exchanges[done:done + 2]] == [
            ("POST", "/oauth/token/", 200), ("POST", "/mcp", 200)]
        assert refreshed.access_token != first.access_token and refreshed.refresh_token != first.refresh_token
        assert mcp_probe(public_origin, refreshed.access_token).status_code == 200

        # SPEC A-3: a copy of the old refresh token comes back after the grace window: refused, and the whole
        # family is dead — the newer access token is refused at /mcp (SPEC A-8: 401 with its challenge), the
        # newer refresh too.
        clock.advance(settings.OAUTH_REFRESH_GRACE + timedelta(seconds=1))
        replay = assistant.refresh_directly(first.refresh_token)
        assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
        refused = mcp_probe(public_origin, refreshed.access_token)
        assert refused.status_code == 401
        assert 'resource_metadata="' in refused.headers["www-authenticate"]
        assert assistant.refresh_directly(refreshed.refresh_token).status_code == 400
        assert TokenFamily.objects.get(user=user).revoked_reason == "refresh_replay"

    # SPEC W-3: the person's page says what happened.
    person.open(f"/me/assistants/{connection.pk}/")
    assert person.page.locator("#security").is_visible()
    person.shot("assistant-after-replay")
    person.open("/me/assistants/")
    person.open("/me/facts/")

    # SPEC A-4: no token, code or verifier of this flow is stored or shown anywhere: not in any column of any
    # table (their hashes are), not in any page the person saw.
    secrets = assistant.secrets
    assert {first.access_token, first.refresh_token, refreshed.access_token, refreshed.refresh_token} <= secrets
    assert len(secrets) >= 6  # + the code and the PKCE verifier (and the registration token)
    text = database_text()
    assert sha256(refreshed.refresh_token) in text  # the scan does see the token tables (revoked rows are kept)
    assert [secret for secret in secrets if secret in text] == []
    assert len(person.html_seen) >= 5
    assert [secret for secret in secrets for html in person.html_seen if secret in html] == []
