"""Mutation testing of the rule code: ``python -m tests.mutation [--list] [AREA ...]`` (``make mutate``).

cosmic-ray mutates the functions of each area (tests/mutation/areas.py)
one change at a time and runs the area's tests against each mutant. It
works in a copy of this tree, so the files here are never mutated, and on
a throwaway PostgreSQL (with Redis), the production database, where the
PostgreSQL-only paths run too. The test database is created once and
reused by every mutant: only rule code is mutated, never a model or a
migration. Prints each area's score and its surviving mutants; the
details go to var/mutation/AREA.json. docs/testing.md explains the rest.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cosmic_ray.work_db import WorkDB, use_db
from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

from tests.mutation.areas import AREAS, EXCLUDED_OPERATORS, Area
from tests.services import postgres_cluster, redis_server

ROOT = Path(__file__).resolve().parents[2]
COSMIC_RAY = str(Path(sys.executable).with_name("cosmic-ray"))
_EXCLUDED = re.compile("|".join(f"(?:{pattern})" for pattern in EXCLUDED_OPERATORS))


def _copy(into: Path) -> Path:
    tree = into / "tree"
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(".git", "var", ".venv", "__pycache__", "mutants"))
    (tree / "var").mkdir()
    return tree


def _test_command(area: Area) -> str:
    pytest = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:warnings",
              "--reuse-db", *area.tests]
    return shlex.join(pytest)


def _config(area: Area, timeout: float) -> str:
    modules = ", ".join(json.dumps(module) for module in area.functions)
    return (
        "[cosmic-ray]\n"
        f"module-path = [{modules}]\n"
        f"timeout = {timeout:.0f}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(_test_command(area))}\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
    )


def _in_scope(area: Area, mutation) -> bool:
    return (mutation.definition_name in area.functions.get(str(mutation.module_path), ())
            and not _EXCLUDED.match(mutation.operator_name))


def _init(tree: Path, name: str, area: Area, timeout: float) -> tuple[Path, Path, int]:
    config, session = tree / f"mutate-{name}.toml", tree / f"mutate-{name}.sqlite"
    config.write_text(_config(area, timeout))
    subprocess.run([COSMIC_RAY, "init", str(config), str(session)], cwd=tree, check=True)
    with use_db(str(session), WorkDB.Mode.open) as db:
        outside = [item.job_id for item in db.pending_work_items if not _in_scope(area, item.mutations[0])]
        db.set_multiple_results(outside, WorkResult(output="out of scope", worker_outcome=WorkerOutcome.SKIPPED))
        pending = db.num_work_items - db.num_results
    return config, session, pending


def _line(tree: Path, module: str, line: int) -> str:
    return (tree / module).read_text().splitlines()[line - 1].strip()


def _equivalent(area: Area, module: str, operator: str, source: str) -> str | None:
    for e_module, e_operator, e_line, why in area.equivalent:
        if (e_module, e_operator) == (module, operator) and e_line == source:
            return why
    return None


def _score(tree: Path, name: str, area: Area, session: Path) -> dict:
    mutants = []
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            mutation = item.mutations[0]
            module = str(mutation.module_path)
            source = _line(tree, module, mutation.start_pos[0])
            outcome = result.test_outcome.value if result.test_outcome else result.worker_outcome.value
            why = _equivalent(area, module, mutation.operator_name, source)
            if outcome == TestOutcome.SURVIVED and why:
                outcome = "equivalent"
            mutants.append({"module": module, "line": mutation.start_pos[0],
                            "function": mutation.definition_name, "operator": mutation.operator_name,
                            "occurrence": mutation.occurrence, "source": source, "outcome": outcome,
                            "why": why})
    counted = [m for m in mutants if m["outcome"] in (TestOutcome.KILLED, TestOutcome.SURVIVED)]
    killed = sum(m["outcome"] == TestOutcome.KILLED for m in counted)
    return {"area": name, "rules": area.rules, "mutants": len(mutants), "killed": killed,
            "survived": len(counted) - killed,
            "equivalent": sum(m["outcome"] == "equivalent" for m in mutants),
            "incompetent": sum(m["outcome"] not in (TestOutcome.KILLED, TestOutcome.SURVIVED, "equivalent")
                               for m in mutants),
            "score": round(100 * killed / len(counted), 1) if counted else None, "details": mutants}


def _named(tree: Path, area: Area, env: dict) -> list[dict]:
    """Apply each written-out mutant alone, run the area's tests, put the file back."""
    outcomes = []
    for module, text, mutated, what in area.named:
        path = tree / module
        original = path.read_text()
        if original.count(text) != 1:  # the code moved on: the entry needs updating, not a pass
            outcomes.append({"module": module, "what": what, "outcome": "stale"})
            continue
        try:
            path.write_text(original.replace(text, mutated))
            run = subprocess.run(_test_command(area), shell=True, cwd=tree, env=env, capture_output=True)
        finally:
            path.write_text(original)
        outcomes.append({"module": module, "what": what,
                         "outcome": TestOutcome.KILLED.value if run.returncode else TestOutcome.SURVIVED.value})
    return outcomes


def _report(result: dict, seconds: float) -> None:
    print(f"\n=== {result['area']} ({result['rules']}): {result['killed']} of "
          f"{result['killed'] + result['survived']} non-equivalent mutants killed = {result['score']} % "
          f"({result['equivalent']} equivalent, {result['incompetent']} incompetent; {seconds / 60:.1f} min)",
          flush=True)
    for m in result["details"]:
        if m["outcome"] == TestOutcome.SURVIVED:
            print(f"  survived  {m['module']}:{m['line']} {m['function']} {m['operator']}  | {m['source']}")
    named = result["named"]
    killed = sum(m["outcome"] == TestOutcome.KILLED for m in named)
    print(f"  written-out mutants: {killed} of {len(named)} killed")
    for m in named:
        if m["outcome"] != TestOutcome.KILLED:
            print(f"  {m['outcome']}  {m['module']}: {m['what']}")


def _side_by_side(names: list[str], jobs: int, flags: list[str]) -> int:
    """Each area in a process of its own, ``jobs`` at a time, the largest first; each one's report when it ends.

    An area's mutants run one after another (cosmic-ray's local distributor), so on a machine with several
    CPUs the areas share them: the whole run takes about as long as its largest area's share of the work.
    """
    with tempfile.TemporaryDirectory(prefix="lifeos-mutate-") as folder:
        sizes = {name: _init(_copy(Path(folder) / name), name, AREAS[name], 60)[2] for name in names}
    waiting = sorted(names, key=sizes.__getitem__, reverse=True)
    running: dict[str, tuple[subprocess.Popen, object]] = {}
    failed = 0
    while waiting or running:
        while waiting and len(running) < jobs:
            name = waiting.pop(0)
            log = tempfile.TemporaryFile(mode="w+")
            process = subprocess.Popen([sys.executable, "-m", "tests.mutation", name, *flags], cwd=ROOT,
                                       stdout=log, stderr=subprocess.STDOUT)
            running[name] = (process, log)
        time.sleep(1)
        for name, (process, log) in list(running.items()):
            if process.poll() is None:
                continue
            del running[name]
            log.seek(0)
            print(log.read(), end="", flush=True)
            log.close()
            failed += process.returncode != 0
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutation")
    parser.add_argument("areas", nargs="*", choices=[[], *AREAS], help="default: every area")
    parser.add_argument("--list", action="store_true", help="only count each area's mutants")
    parser.add_argument("--named", action="store_true", help="only the written-out mutants (a few minutes)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="areas measured at once, each in its own copy and database (default: one per CPU)")
    args = parser.parse_args(argv)
    names = args.areas or list(AREAS)
    if len(names) > 1 and args.jobs > 1 and not args.list:
        return _side_by_side(names, args.jobs, ["--named"] if args.named else [])
    out = ROOT / "var" / "mutation"
    out.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        tree = _copy(Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lifeos-mutate-"))))
        if args.list:
            for name in names:
                print(f"{name}: {_init(tree, name, AREAS[name], 60)[2]} mutants")
            return 0
        env = dict(os.environ, DATABASE_URL=stack.enter_context(postgres_cluster()),
                   TEST_REDIS_URL=stack.enter_context(redis_server()), TEST_DATABASE_LABEL="postgresql")
        failed = 0
        for name in names:
            area = AREAS[name]
            started = time.monotonic()
            # The unmutated code must pass; its time bounds each mutant's.
            baseline = subprocess.run(_test_command(area), shell=True, cwd=tree, env=env)
            if baseline.returncode != 0:
                print(f"{name}: the tests fail without any mutant; nothing measured", flush=True)
                failed += 1
                continue
            timeout = max(60.0, 3 * (time.monotonic() - started))
            if args.named:
                named = _named(tree, area, env)
                (out / f"{name}-named.json").write_text(json.dumps(named, indent=1, ensure_ascii=False))
                _report({"area": name, "rules": area.rules, "killed": 0, "survived": 0, "score": None,
                         "equivalent": 0, "incompetent": 0, "details": [], "named": named},
                        time.monotonic() - started)
                continue
            config, session, pending = _init(tree, name, area, timeout)
            print(f"{name}: {pending} mutants, at most {timeout:.0f} s each", flush=True)
            subprocess.run([COSMIC_RAY, "exec", str(config), str(session)], cwd=tree, env=env, check=True)
            result = _score(tree, name, area, session)
            result["named"] = _named(tree, area, env)
            (out / f"{name}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False))
            _report(result, time.monotonic() - started)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
