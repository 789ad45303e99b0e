"""A code is created only for /mcp, whatever reached code creation (SPEC A-6, A-2).

The consent page refuses another resource before it is shown; the code's
creation checks again, so a signed offer altered afterwards, or any other
path to it, gets no code.
"""

import dataclasses
from urllib.parse import urlencode

import pytest

from apps.oauth.offers import Offer
from tests.oauth import flow as oauth_flow
from tests.oauth.test_rules import assert_error_redirect, assert_nothing_issued, authorize

pytestmark = pytest.mark.django_db


def approve_forged(browser, assistant, user, **changes):
    flow = oauth_flow.registered(assistant)
    page = authorize(browser, flow)
    assert page.status_code == 200, page.content
    form = oauth_flow.read_form(page.content.decode())
    offer = Offer.unsign(dict(form.fields)["offer"], user=user)
    forged = dataclasses.replace(offer, **changes).sign(user=user)
    fields = [(k, forged if k == "offer" else v) for k, v in form.fields] + [("allow", "1")]
    return browser.post(form.action, data=urlencode(fields), content_type="application/x-www-form-urlencoded")


# SPEC A-6: a code is bound to /mcp; an offer altered to name another resource, or an empty one, gets no code.
@pytest.mark.parametrize("resource", ["https://elsewhere.example/mcp", ""], ids=["other", "empty"])
def test_code_creation_refuses_another_resource(assistant, browser, user, resource):
    response = approve_forged(browser, assistant, user, resource=resource)
    assert_error_redirect(response, "invalid_target")
    assert_nothing_issued()
