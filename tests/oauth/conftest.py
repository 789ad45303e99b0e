import pytest
from django.core.cache import cache
from django.test import Client

from tests.oauth import flow as oauth_flow


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
