"""Admin pages for OAuth and consent rows (SPEC AD-1): useful, and never showing a secret or its hash."""

import hashlib

import pytest
from django.apps import apps
from django.db import connection
from django.test import Client
from oauth2_provider.models import get_application_model

from apps.consent.models import Connection
from apps.oauth.bearer import authenticate_bearer
from tests.accounts.factors import verified_login
from tests.oauth import flow as oauth_flow

pytestmark = pytest.mark.django_db


def sha256(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


@pytest.fixture
def admin_client(django_user_model):
    staff = django_user_model.objects.create_superuser("staff", "staff@example.com", "staff-password")
    return verified_login(Client(), staff)


# SPEC AD-1: every admin page for these models renders, and shows no token, code, checksum or hash.
def test_admin_pages_show_no_secret(assistant, browser, admin_client):
    flow = oauth_flow.full_flow(assistant, browser)
    admin = admin_client
    forbidden = set(flow.secrets_seen) | {sha256(secret) for secret in flow.secrets_seen}
    with connection.cursor() as cursor:
        cursor.execute("SELECT client_secret FROM oauth2_provider_application")
        forbidden |= {row[0] for row in cursor.fetchall() if row[0]}
        cursor.execute("SELECT code FROM oauth_hashedgrant")
        forbidden |= {row[0] for row in cursor.fetchall()}

    models = ["oauth2_provider/application", "oauth2_provider/accesstoken", "oauth2_provider/refreshtoken",
              "oauth2_provider/idtoken", "oauth/hashedgrant", "oauth/tokenfamily", "consent/connection",
              "consent/factshare", "consent/accessevent"]
    seen_rows = 0
    for label in models:
        changelist = admin.get(f"/admin/{label}/")
        assert changelist.status_code == 200, label
        pages = [changelist]
        for pk in apps.get_model(*label.split("/")).objects.values_list("pk", flat=True):
            pages.append(admin.get(f"/admin/{label}/{pk}/change/"))
            assert pages[-1].status_code == 200, (label, pk)
            seen_rows += 1
        for page in pages:
            html = page.content.decode()
            assert [value for value in forbidden if value in html] == [], label
    assert seen_rows > 10


# SPEC AD-1, C-7: staff revoke a connection from its admin list; its tokens die at once.
def test_admin_revokes_connections(assistant, browser, connected, admin_client):
    admin = admin_client
    connection_row = Connection.objects.get()
    response = admin.post("/admin/consent/connection/", {"action": "revoke", "_selected_action": [connection_row.pk]})
    assert response.status_code == 302
    connection_row.refresh_from_db()
    assert connection_row.revoked_at is not None
    assert authenticate_bearer(connected.tokens[0]["access_token"]) is None
    assert oauth_flow.refresh(assistant, connected, connected.tokens[0]["refresh_token"]).status_code == 400


# SPEC AD-1: staff add an internal agent's client; its secret is shown once, then stored only hashed.
def test_admin_adds_a_client_and_never_shows_its_secret_again(admin_client):
    page = admin_client.get("/admin/oauth2_provider/application/add/")
    assert page.status_code == 200
    response = admin_client.post("/admin/oauth2_provider/application/add/", {
        "name": "Planner agent", "client_type": "confidential", "authorization_grant_type": "client-credentials",
        "redirect_uris": "", "client_id": "planner", "client_secret": "copied-once-secret-value",
    })
    assert response.status_code == 302, response.content
    application = get_application_model().objects.get(client_id="planner")
    assert application.client_secret != "copied-once-secret-value"
    assert application.client_secret.startswith(("md5$", "pbkdf2", "argon2", "bcrypt", "scrypt"))
    html = admin_client.get(f"/admin/oauth2_provider/application/{application.pk}/change/").content.decode()
    assert "copied-once-secret-value" not in html and application.client_secret not in html


# SPEC A-6: staff add a native app's client under the rules assistants register under: its private-use
# scheme is accepted, a dangerous scheme or a foreign http host is not.
@pytest.mark.parametrize("uri, accepted", [
    ("cursor://anysphere.cursor-mcp/oauth/callback", True),
    ("https://assistant.example/callback", True),
    ("javascript:alert(1)", False),
    ("http://assistant.example/callback", False),
])
def test_admin_applies_the_redirect_rules(admin_client, uri, accepted):
    response = admin_client.post("/admin/oauth2_provider/application/add/", {
        "name": "Native", "client_type": "public", "authorization_grant_type": "authorization-code",
        "redirect_uris": uri, "client_id": "native-app", "client_secret": "",
    })
    assert (response.status_code == 302) == accepted, response.content[:2000]
    assert get_application_model().objects.filter(client_id="native-app").exists() == accepted


# SPEC AD-1: lists can be filtered and searched by person and assistant name.
def test_admin_lists_filter_and_search(assistant, browser, connected, admin_client):
    for url in ("/admin/consent/connection/?q=alice", "/admin/consent/connection/?status=active",
                "/admin/oauth2_provider/accesstoken/?q=Helpful", "/admin/oauth2_provider/refreshtoken/?q=alice",
                "/admin/oauth/tokenfamily/?q=Helpful", "/admin/oauth/hashedgrant/?q=alice"):
        page = admin_client.get(url)
        assert page.status_code == 200, url
        assert "alice" in page.content.decode(), url
    page = admin_client.get("/admin/consent/connection/?status=revoked")
    assert "Helpful Assistant" not in page.content.decode().split("result_list")[-1]


# SPEC AD-1: no admin page answers 500. "View on site" would reverse a toolkit page this product does not
# serve, so models whose site address does not resolve offer no such link.
def test_view_on_site_is_offered_only_where_it_resolves(assistant, browser, connected, admin_client):
    from django.contrib import admin
    from django.contrib.contenttypes.models import ContentType

    for model in admin.site._registry:
        instance = model._default_manager.first()
        if instance is None or not hasattr(instance, "get_absolute_url"):
            continue
        content_type = ContentType.objects.get_for_model(model)
        response = admin_client.get(f"/admin/r/{content_type.pk}/{instance.pk}/")
        assert response.status_code in (302, 404), (model, response.status_code)
        change = admin_client.get(f"/admin/{model._meta.app_label}/{model._meta.model_name}/{instance.pk}/change/")
        assert ('class="viewsitelink"' in change.content.decode()) == (response.status_code == 302), model
