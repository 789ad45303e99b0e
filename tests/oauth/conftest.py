import pytest
from django.core.cache import cache
from django.test import Client

from tests.oauth import flow as oauth_flow
from tests.oauth.metadata_server import start


@pytest.fixture(autouse=True)
def _fresh_cache():
    """The registration rate limit counts in the cache; every test starts at zero."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def assistant():
    """The assistant's HTTP client: no cookies, no session."""
    return Client(headers={"accept-language": "en"})


@pytest.fixture
def browser(user):
    """The person's browser, logged in."""
    client = Client(headers={"accept-language": "en"})
    client.force_login(user)
    return client


@pytest.fixture
def approved(assistant, browser):
    """A registered assistant whose consent was approved with the defaults; the code is in ``flow.code``."""
    flow = oauth_flow.registered(assistant)
    oauth_flow.code_from(oauth_flow.approve(browser, flow), flow)
    return flow


@pytest.fixture
def connected(assistant, approved):
    """``approved``, with the code exchanged: ``flow.tokens[0]`` holds the first pair."""
    response = oauth_flow.exchange(assistant, approved)
    assert response.status_code == 200, response.content
    return approved


@pytest.fixture
def documents(tmp_path, monkeypatch, settings):
    """A real https server on loopback serving client ID metadata documents, trusted by the fetcher."""
    state, server, ca_file = start(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", ca_file)
    settings.CIMD_ALLOW_LOOPBACK = True
    yield state
    server.shutdown()
    server.server_close()
