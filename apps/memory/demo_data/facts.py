"""The demo person's facts: N deterministic facts over all eight categories (SPEC I-2)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING

from django.db import transaction

from apps.memory.demo_data.fact_content import EVIDENCE, GUESSES, MARKED_SENSITIVE, POOLS
from apps.memory.detectors import looks_sensitive
from apps.memory.models import Category, Certainty, Fact, FactStatus
from apps.memory.services import fact_archive, fact_create, fact_update

if TYPE_CHECKING:
    from apps.accounts.models import User

# The first eight facts cover every category, so even a small N shows them all.
FIRST = list(Category.values)
# After that, shareable categories come up most often: a demo account should have
# well over 50 facts an assistant could be shown (SPEC M-6 paging), and a few that never can.
CYCLE = [*Category.shareable() * 3, "preferences", "work_study", "health", "relationships", "uncategorized"]
BATCH = 1000  # facts per transaction (and per progress report): fast on SQLite, a crash loses one batch


@dataclass(frozen=True)
class FactSpec:
    category: str
    label: str
    value: str
    evidence: str
    certainty: str
    sensitive: bool | None  # None: detection decides (SPEC D-1)


@dataclass
class FactsSeeded:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    archived: int = 0
    ids: list[int] = field(default_factory=list)


def _long_and_short(pool: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Alternate the longest and the shortest texts: every stretch of the list is realistic and heavy."""
    by_size = sorted(pool, key=lambda item: (-len(item[1].encode()), item[0]))
    half = (len(by_size) + 1) // 2
    longer, shorter = by_size[:half], by_size[half:][::-1]
    return [item for pair in zip(longer, [*shorter, None], strict=False) for item in pair if item is not None]


ORDERED_POOLS = {category: _long_and_short(pool) for category, pool in POOLS.items()}


def _categories() -> Iterator[str]:
    yield from FIRST
    while True:
        yield from CYCLE


def demo_facts(count: int) -> list[FactSpec]:
    """The first ``count`` demo facts; the same list on every call."""
    seen = dict.fromkeys(POOLS, 0)
    specs = []
    for category in islice(_categories(), count):
        pool = ORDERED_POOLS[category]
        round_, index = divmod(seen[category], len(pool))
        seen[category] += 1
        label, value = pool[index]
        language = "en" if label.isascii() else "zh"
        specs.append(FactSpec(
            category=category,
            label=label if round_ == 0 else f"{label} · {round_ + 1}"[:40],
            value=value,
            evidence=EVIDENCE[language],
            certainty=Certainty.GUESS if label in GUESSES else Certainty.CONFIRMED,
            sensitive=True if label in MARKED_SENSITIVE else None,
        ))
    return specs


def _changes(fact: Fact, spec: FactSpec) -> dict:
    wanted = {
        "category": spec.category, "label": spec.label, "value": spec.value,
        "evidence": spec.evidence, "certainty": spec.certainty,
        # Spelled out on update: detection alone only ever turns the flag on.
        "sensitive": looks_sensitive(spec.label, spec.value) if spec.sensitive is None else spec.sensitive,
    }
    return {name: value for name, value in wanted.items() if getattr(fact, name) != value}


def seed_facts(*, owner: User, count: int, progress: Callable[[int, int], None] | None = None) -> FactsSeeded:
    """Make the owner's active facts exactly the first ``count`` demo facts, through the fact services.

    Idempotent: the i-th active fact becomes the i-th demo fact; those beyond ``count`` are archived.
    """
    result = FactsSeeded()
    specs = demo_facts(count)
    existing = list(Fact.objects.filter(owner=owner, status=FactStatus.ACTIVE).order_by("id"))
    for start in range(0, count, BATCH):
        with transaction.atomic():
            for position in range(start, min(start + BATCH, count)):
                spec = specs[position]
                if position < len(existing):
                    fact = existing[position]
                    changes = _changes(fact, spec)
                    if changes:
                        fact = fact_update(fact=fact, **changes)
                        result.updated += 1
                    else:
                        result.unchanged += 1
                else:
                    fact = fact_create(
                        owner=owner, category=spec.category, label=spec.label, value=spec.value,
                        evidence=spec.evidence, certainty=spec.certainty, sensitive=spec.sensitive,
                    )
                    result.created += 1
                result.ids.append(fact.pk)
        if progress:
            progress(min(start + BATCH, count), count)
    for extra in existing[count:]:
        fact_archive(fact=extra)
        result.archived += 1
    return result
