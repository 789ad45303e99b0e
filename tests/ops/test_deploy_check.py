"""Production settings pass `manage.py check --deploy` (SPEC O-2, I-1)."""

from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.ops.conftest import BASE_DIR, PRODUCTION_ENV, PYTHON, subprocess_env

# A production environment with one piece weakened or missing, and the check that must catch it.
WEAKENED = {
    "debug-on": ({"DEBUG": "1"}, "security.W018"),
    "no-hsts": ({"SECURE_HSTS_SECONDS": "0"}, "security.W004"),
    "no-redis": ({"REDIS_URL": None}, "ops.W002"),
    "no-bucket": ({"AWS_STORAGE_BUCKET_NAME": None}, "ops.W003"),
    "no-database-url": ({"DATABASE_URL": None}, "ops.W001"),
    "plain-http": ({"PUBLIC_BASE_URL": "http://memory.example.com"}, "ops.W004"),
    "no-secret-key": ({"SECRET_KEY": None}, "SECRET_KEY is required"),
}


def _check_deploy(environ: dict[str, str | None]) -> subprocess.CompletedProcess:
    environ = {name: value for name, value in environ.items() if value is not None}
    return subprocess.run(
        [PYTHON, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=BASE_DIR, env=subprocess_env(environ), capture_output=True, text=True, timeout=180,
    )


@pytest.fixture(scope="module")
def results():
    """Every environment checked once, in parallel: each is a fresh Django process."""
    environments = {"production": PRODUCTION_ENV} | {
        name: {**PRODUCTION_ENV, **change} for name, (change, _) in WEAKENED.items()
    }
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {name: pool.submit(_check_deploy, environ) for name, environ in environments.items()}
        return {name: future.result() for name, future in futures.items()}


# SPEC O-2, I-1: the documented production environment raises no warning and no error.
def test_production_environment_passes_check_deploy(results):
    result = results["production"]
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


# SPEC O-2, O-3: the check catches a production environment that lacks a required piece
# (and so proves it can fail).
@pytest.mark.parametrize("name", sorted(WEAKENED))
def test_check_deploy_flags_a_weakened_environment(results, name):
    result, (_, expected) = results[name], WEAKENED[name]
    assert result.returncode != 0
    assert expected in result.stdout + result.stderr
