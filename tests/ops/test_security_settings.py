"""Security settings read from the environment, with their bounds (issue 19; docs/deploy.md)."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.ops.conftest import PRODUCTION_ENV


# SPEC A-6: the RFC 7592 registration access token expires; its lifetime is a setting with bounds.
def test_registration_token_lifetime(settings_for):
    assert settings_for(PRODUCTION_ENV)["OAUTH2_PROVIDER"]["DCR_REGISTRATION_TOKEN_EXPIRE_SECONDS"] == 86400
    built = settings_for({**PRODUCTION_ENV, "OAUTH_REGISTRATION_TOKEN_LIFETIME": "3600"})
    assert built["OAUTH2_PROVIDER"]["DCR_REGISTRATION_TOKEN_EXPIRE_SECONDS"] == 3600


@pytest.mark.parametrize("value", ["0", "59", str(31 * 86400), "-1"])
def test_registration_token_lifetime_bounds(settings_for, value):
    with pytest.raises(ImproperlyConfigured, match="OAUTH_REGISTRATION_TOKEN_LIFETIME"):
        settings_for({**PRODUCTION_ENV, "OAUTH_REGISTRATION_TOKEN_LIFETIME": value})


# SPEC P-8: the pending-proposal cap per connection is a setting (default 100) with bounds.
def test_pending_proposal_limit(settings_for):
    assert settings_for(PRODUCTION_ENV)["PROPOSAL_PENDING_LIMIT"] == 100
    assert settings_for({**PRODUCTION_ENV, "PROPOSAL_PENDING_LIMIT": "20"})["PROPOSAL_PENDING_LIMIT"] == 20
    for value in ("0", "10001"):
        with pytest.raises(ImproperlyConfigured, match="PROPOSAL_PENDING_LIMIT"):
            settings_for({**PRODUCTION_ENV, "PROPOSAL_PENDING_LIMIT": value})
