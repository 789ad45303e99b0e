"""Fixtures of the reliability tests: the /mcp fixtures of tests/mcp_server, reused as they are.

Property tests here use hypothesis with a fixed seed (``derandomize=True``) and
few examples, so a run is repeatable and short on either database.
"""

from hypothesis import HealthCheck, settings

# Re-exported so the tests below can ask for them by name (one definition, in tests/mcp_server).
from tests.mcp_server.conftest import _fresh_cache, application, connect, issue_token  # noqa: F401  (fixtures)

FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=25,
    # The database fixtures are per test, not per example: every example of a test sees the
    # state the previous ones left, which is what a long-lived server sees too.
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                           HealthCheck.data_too_large, HealthCheck.large_base_example],
)
