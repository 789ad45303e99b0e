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


# SPEC A-11: login throttling (django-axes), its two numbers from the environment, with bounds.
def test_login_throttle_settings(settings_for):
    from datetime import timedelta

    built = settings_for(PRODUCTION_ENV)
    assert built["AXES_FAILURE_LIMIT"] == 5 and built["AXES_COOLOFF_TIME"] == timedelta(minutes=15)
    assert built["AXES_HANDLER"] == "axes.handlers.database.AxesDatabaseHandler"  # shared by every worker
    assert built["AUTHENTICATION_BACKENDS"][0] == "axes.backends.AxesStandaloneBackend"
    assert built["MIDDLEWARE"][-1] == "axes.middleware.AxesMiddleware"
    built = settings_for({**PRODUCTION_ENV, "LOGIN_FAILURE_LIMIT": "10", "LOGIN_COOLOFF_MINUTES": "60"})
    assert built["AXES_FAILURE_LIMIT"] == 10 and built["AXES_COOLOFF_TIME"] == timedelta(hours=1)
    out_of_range = (("LOGIN_FAILURE_LIMIT", "0"), ("LOGIN_COOLOFF_MINUTES", "0"), ("LOGIN_COOLOFF_MINUTES", "1441"))
    for name, value in out_of_range:
        with pytest.raises(ImproperlyConfigured, match="LOGIN_"):
            settings_for({**PRODUCTION_ENV, name: value})
