"""The retrieval evaluation set and its runner (``manage.py retrieval_eval``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.files.storage import default_storage
from django.db import transaction

from apps.common import clock

if TYPE_CHECKING:
    from apps.agents.evaluation.runner import Report


class _RolledBack(Exception):
    pass


def run_evaluation(*, keep: bool = False) -> Report:
    """Build the set, evaluate it, and (unless ``keep``) leave no trace: rows rolled back, bodies deleted."""
    from apps.agents.evaluation import dataset, runner

    bodies: list[str] = []
    report: Report | None = None
    try:
        with clock.frozen_at(dataset.NOW), transaction.atomic():
            built = dataset.build()
            bodies = [t.body_path for t in built.transcripts]
            report = runner.evaluate(built)
            if not keep:
                raise _RolledBack
    except _RolledBack:
        for path in bodies:
            default_storage.delete(path)
    assert report is not None  # evaluate() returned, or its error went up
    return report
