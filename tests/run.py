"""Run the whole suite on SQLite and on PostgreSQL: ``python -m tests.run [pytest args]``.

PostgreSQL comes from ``DATABASE_URL`` when it names one; otherwise a
throwaway cluster is started on loopback and removed afterwards. Each pass
gets a Redis server of its own (``TEST_REDIS_URL``), started the same way.

The two passes run side by side: much of the suite waits on browsers, servers
and subprocesses, so together they take little more than the longer one. The
SQLite pass prints as it goes; the PostgreSQL pass's output follows when it ends.

A third pass, beside them, runs only the tests marked ``replica`` (SPEC O-4)
against a throwaway primary and a streaming replica of it, configured as
deployed (``DATABASE_REPLICA_URLS``); the other passes skip those tests.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile

from tests.services import postgres_cluster, postgres_replicated, redis_server

NO_TESTS_COLLECTED = 5  # pytest's exit status when the arguments select none (the replica pass, often)


def _start(database_url: str, redis_url: str, label: str, args: list[str], stdout=None,
           **extra: str) -> subprocess.Popen:
    env = dict(os.environ, DATABASE_URL=database_url, TEST_REDIS_URL=redis_url, TEST_DATABASE_LABEL=label, **extra)
    return subprocess.Popen([sys.executable, "-m", "pytest", *args], env=env, stdout=stdout,
                            stderr=subprocess.STDOUT if stdout else None)


def main(args: list[str]) -> int:
    given = os.environ.get("DATABASE_URL", "")
    with contextlib.ExitStack() as stack:
        if given.startswith(("postgres://", "postgresql://")):
            pg_url = given
        else:
            pg_url = stack.enter_context(postgres_cluster())
        pg_log = stack.enter_context(tempfile.TemporaryFile(mode="w+b"))
        postgresql = _start(pg_url, stack.enter_context(redis_server()), "postgresql", args, stdout=pg_log)
        stack.callback(lambda: postgresql.poll() is None and postgresql.kill())
        pair = stack.enter_context(postgres_replicated())
        replica_log = stack.enter_context(tempfile.TemporaryFile(mode="w+b"))
        replicated = _start(pair.primary_url, stack.enter_context(redis_server()), "postgresql+replica",
                            [*args, "-m", "replica"], stdout=replica_log, DATABASE_REPLICA_URLS=pair.replica_url)
        stack.callback(lambda: replicated.poll() is None and replicated.kill())
        print("\n=== test suite on sqlite ===", flush=True)
        sqlite = _start("sqlite:///var/test.sqlite3", stack.enter_context(redis_server()), "sqlite", args)
        results = {"sqlite": sqlite.wait(), "postgresql": postgresql.wait()}
        replica_code = replicated.wait()
        results["postgresql+replica"] = 0 if replica_code == NO_TESTS_COLLECTED else replica_code
        for label, log in (("postgresql", pg_log), ("postgresql with a streaming replica", replica_log)):
            print(f"\n=== test suite on {label} ===", flush=True)
            log.seek(0)
            sys.stdout.buffer.write(log.read())
            sys.stdout.flush()
    print("\n=== summary ===")
    for label, code in results.items():
        print(f"{label}: {'passed' if code == 0 else f'FAILED (exit {code})'}")
    return 0 if all(code == 0 for code in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
