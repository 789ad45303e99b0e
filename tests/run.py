"""Run the whole suite on SQLite and on PostgreSQL: ``python -m tests.run [pytest args]``.

PostgreSQL comes from ``DATABASE_URL`` when it names one; otherwise a
throwaway cluster is started on loopback and removed afterwards. A Redis
server is started the same way for the tests that need one (``TEST_REDIS_URL``).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys

from tests.services import postgres_cluster, redis_server


def _pytest(database_url: str, redis_url: str, label: str, args: list[str]) -> int:
    env = dict(os.environ, DATABASE_URL=database_url, TEST_REDIS_URL=redis_url, TEST_DATABASE_LABEL=label)
    print(f"\n=== test suite on {label} ===", flush=True)
    return subprocess.call([sys.executable, "-m", "pytest", *args], env=env)


def main(args: list[str]) -> int:
    given = os.environ.get("DATABASE_URL", "")
    with contextlib.ExitStack() as stack:
        redis_url = stack.enter_context(redis_server())
        if given.startswith(("postgres://", "postgresql://")):
            pg_url = given
        else:
            pg_url = stack.enter_context(postgres_cluster())
        results = {
            "sqlite": _pytest("sqlite:///var/test.sqlite3", redis_url, "sqlite", args),
            "postgresql": _pytest(pg_url, redis_url, "postgresql", args),
        }
    print("\n=== summary ===")
    for label, code in results.items():
        print(f"{label}: {'passed' if code == 0 else f'FAILED (exit {code})'}")
    return 0 if all(code == 0 for code in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
