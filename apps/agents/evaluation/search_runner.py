"""Ask the search evaluation set through both surfaces and measure it (SPEC S-4, R-5, R-8).

Surfaces: ``search_user_context`` over the facts of one person shared with a connection, and the layer's
``search`` in an agent run over each person. Design notes: docs/search.md "Evaluation".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.test import override_settings
from oauth2_provider.models import get_application_model

from apps.agents.evaluation import search_set
from apps.agents.services import policy_create, run_access, run_start
from apps.retrieval.layer import handle
from apps.retrieval.layer.registry import registry

if TYPE_CHECKING:
    from apps.consent.models import Connection

TOP = 5
FACTS_PAGE = 10
LAYER_TOP_K = 10
WIDE_TOP_K = 50
TOOL = "search_user_context"
LAYER = "layer"
SURFACES = (TOOL, LAYER)
# (connection, query, offset, limit) → the ids of the facts answered, in order.
AskFacts = Callable[["Connection", str, int, int], list[int]]
# What the layer's agent may not read: the field twins differ only there (SPEC R-5).
WITHHELD = {"todo": "/notes", "user_profile": "/evidence"}
TARGETS = {"answerable_recall_at_5": 0.9, "unanswerable_empty_rate": 0.9, "keyword_recall_at_5": 1.0,
           "rare_word_first_rate": 0.95, "field_violations": 0, "order_violations": 0}


@dataclass
class Tally:
    answerable_refs: int = 0
    answerable_found: int = 0
    keyword_refs: int = 0
    keyword_found: int = 0
    rare: int = 0
    rare_first: int = 0
    unanswerable: int = 0
    empty: int = 0
    field_violations: int = 0
    order_checks: int = 0
    order_violations: int = 0
    order_unseen: int = 0  # neither record answered: nothing to order (words alone, a paraphrase)
    failures: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        def rate(part: int, whole: int) -> float:
            return round(part / whole, 4) if whole else 1.0

        return {
            "answerable_recall_at_5": rate(self.answerable_found, self.answerable_refs),
            "answerable_refs": self.answerable_refs,
            "unanswerable_empty_rate": rate(self.empty, self.unanswerable), "unanswerable_asked": self.unanswerable,
            "keyword_recall_at_5": rate(self.keyword_found, self.keyword_refs), "keyword_refs": self.keyword_refs,
            "rare_word_first_rate": rate(self.rare_first, self.rare), "rare_asked": self.rare,
            "field_violations": self.field_violations,
            "order_violations": self.order_violations, "order_checks": self.order_checks,
            "order_unseen": self.order_unseen,
        }


def default_ask_facts(connection: Connection, query: str, offset: int, limit: int) -> list[int]:
    """The ranked ids ``search_user_context`` answers (its selector, as the tool calls it)."""
    from apps.consent.selectors.visible_set import visible_ids, visible_set_stamp
    from apps.retrieval.selectors import search_visible_matches

    return list(search_visible_matches(owner_id=connection.user_id, visible=visible_ids(connection=connection),
                                       visible_stamp=visible_set_stamp(connection=connection), query=query,
                                       offset=offset, limit=limit).ids)


class _Surfaces:
    """The two ways to ask, over the built set."""

    def __init__(self, built: search_set.Built, ask_facts: AskFacts) -> None:
        from apps.consent.services import connection_authorize, shares_set
        from apps.memory.models import Category

        self.built, self.ask_facts_raw = built, ask_facts
        application = get_application_model().objects.create(
            name="search evaluation", client_type="public", authorization_grant_type="authorization-code",
            redirect_uris="http://127.0.0.1:9999/callback")
        self.connection = connection_authorize(user=built.facts_owner, application=application,
                                               scopes={"profile:read", "context:search"},
                                               categories=set(Category.shareable()))
        shares_set(connection=self.connection, fact_ids=set(built.fact_ids))
        agent = get_application_model().objects.create(
            name="search evaluation agent", client_type="confidential",
            authorization_grant_type="client-credentials")
        grants = {}
        for resource in registry.all():
            declaration = resource.declaration
            fields = [f.path for f in declaration.fields if "/" not in f.path[1:]
                      and f.path != WITHHELD.get(resource.type)]
            grants[resource.type] = {"operations": ["search"], "fields": fields}
        self.policy = policy_create(agent_id=f"search-evaluation-{agent.pk}", name="Search evaluation",
                                    application=agent, grants=grants)
        self.runs = {owner.pk: run_start(policy=self.policy, user_id=owner.pk, thread_id=f"eval-{owner.pk}")
                     for owner in (built.facts_owner, built.records_owner)}

    def facts(self, query: str, offset: int = 0, limit: int = FACTS_PAGE) -> list[str]:
        ids = self.ask_facts_raw(self.connection, query, offset, limit)
        return [self.built.refs[self.built.fact_ids[i]] if i in self.built.fact_ids else f"?{i}" for i in ids]

    def layer(self, owner_id: int, query: str, top_k: int = LAYER_TOP_K) -> tuple[list[tuple[str, float]], bool]:
        run = self.runs[owner_id]
        access = run_access(policy=self.policy, run_id=run.run_id, thread_id=run.thread_id)
        answer = handle(access, "search", {"query": query, "top_k": top_k})
        return [(hit["ref"], hit["score"]) for hit in answer["hits"]], answer["truncated"]


def _twins(built: search_set.Built, corpus: str) -> list[tuple[str, str]]:
    prefix = "user_profile:" if corpus == "facts" else ""
    pairs = [(built.refs[a], built.refs[b]) for a, b in search_set.load()["twins"]]
    return [p for p in pairs if p[0].startswith(prefix)] if prefix else [
        p for p in pairs if not p[0].startswith("user_profile:")]


class _Evaluation:
    def __init__(self, built: search_set.Built, surfaces: _Surfaces) -> None:
        self.built, self.surfaces = built, surfaces
        self.tallies = {name: Tally() for name in SURFACES}

    def ask(self, q: dict[str, Any]) -> None:
        built = self.built
        targets: list[tuple[str, str]] = []  # (surface, corpus)
        if q["corpus"] in ("facts", "none"):
            targets += [(TOOL, "facts"), (LAYER, "facts")]
        if q["corpus"] in ("records", "none"):
            targets.append((LAYER, "records"))
        for surface, corpus in targets:
            owner = built.facts_owner if corpus == "facts" else built.records_owner
            if surface == TOOL:
                shown = self.surfaces.facts(q["query"])
                scores = None
            else:
                hits, truncated = self.surfaces.layer(owner.pk, q["query"])
                shown, scores = [ref for ref, _ in hits], dict(hits)
            self._measure(self.tallies[surface], surface, corpus, owner.pk, q, shown, scores)

    def _measure(self, tally: Tally, surface: str, corpus: str, owner_id: int, q: dict[str, Any],
                 shown: list[str], scores: dict[str, float] | None) -> None:
        label = f"{surface} {q['id']} {q['query']!r}"
        names = [self.built.key_of(ref) for ref in shown]
        if q["kind"] == "unanswerable":
            tally.unanswerable += 1
            if shown:
                tally.failures.append(f"{label}: expected nothing, got {names[:5]}")
            else:
                tally.empty += 1
        elif q["kind"] == "order":
            tally.order_checks += 1
            above, below = self.built.refs[q["above"]], self.built.refs[q["below"]]
            if above not in shown or below not in shown:
                shown = [ref for ref, _ in self.surfaces.layer(owner_id, q["query"], WIDE_TOP_K)[0]]
            if above not in shown and below not in shown:
                tally.order_unseen += 1
                tally.failures.append(f"{label}: neither {q['above']} nor {q['below']} answered")
            elif below in shown and (above not in shown or shown.index(above) > shown.index(below)):
                tally.order_violations += 1
                tally.failures.append(f"{label}: {q['above']} must be above {q['below']} ({q['rule']}), "
                                      f"got {[self.built.key_of(r) for r in shown[:10]]}")
        else:
            expected = [self.built.refs[key] for key in q["expected"]]
            found = sum(ref in shown[:TOP] for ref in expected)
            tally.answerable_refs += len(expected)
            tally.answerable_found += found
            if q["kind"] == "keyword":
                tally.keyword_refs += len(expected)
                tally.keyword_found += found
                if q.get("rare"):
                    tally.rare += 1
                    tally.rare_first += bool(shown) and shown[0] == expected[0]
                    if not shown or shown[0] != expected[0]:
                        tally.failures.append(f"{label}: rare word's record {q['expected'][0]} not first: {names[:3]}")
            if found < len(expected):
                tally.failures.append(f"{label} [{q['kind']} {q['direction']}]: expected {q['expected']}, "
                                      f"got {names[:TOP]}")
        self._fields(tally, surface, corpus, owner_id, q, shown, scores, label)

    def _fields(self, tally: Tally, surface: str, corpus: str, owner_id: int, q: dict[str, Any],
                shown: list[str], scores: dict[str, float] | None, label: str) -> None:
        """SPEC R-5: twins differing only in a field the caller may not read answer alike."""
        for a, b in _twins(self.built, corpus):
            if (a in shown) != (b in shown):  # perhaps cut at the page's end: look further
                if surface == TOOL:
                    shown = shown + self.surfaces.facts(q["query"], offset=len(shown)) if len(shown) == FACTS_PAGE \
                        else shown
                else:
                    hits, _ = self.surfaces.layer(owner_id, q["query"], WIDE_TOP_K)
                    shown, scores = [ref for ref, _ in hits], dict(hits)
            if (a in shown) != (b in shown):
                if shown[-1:] in ([a], [b]):
                    continue  # the last place of the widest page: its twin may be just past it
                tally.field_violations += 1
                tally.failures.append(f"{label}: twin {self.built.key_of(a)} / {self.built.key_of(b)} "
                                      "answered differently")
            elif a in shown:
                alike = abs(shown.index(a) - shown.index(b)) == 1 if scores is None else scores[a] == scores[b]
                if not alike:
                    tally.field_violations += 1
                    tally.failures.append(f"{label}: twins {self.built.key_of(a)} / {self.built.key_of(b)} "
                                          "ranked apart")


def evaluate(built: search_set.Built, *, ask_facts: AskFacts = default_ask_facts,
             halves: tuple[str, ...] = search_set.HALVES, words_only: bool = False) -> dict[str, Any]:
    """{half: {surface: figures}} plus each half's failures; ``words_only``: with meaning off."""
    surfaces = _Surfaces(built, ask_facts)
    report: dict[str, Any] = {}
    for half in halves:
        evaluation = _Evaluation(built, surfaces)
        if words_only:
            with override_settings(SEARCH_EMBEDDINGS={}):
                for q in search_set.questions(half):
                    evaluation.ask(q)
        else:
            for q in search_set.questions(half):
                evaluation.ask(q)
        report[half] = {name: t.figures() for name, t in evaluation.tallies.items()}
        report[half]["failures"] = [f for t in evaluation.tallies.values() for f in t.failures]
    return report


def misses(figures: dict[str, Any]) -> list[str]:
    """The targets (``TARGETS``) one surface's figures miss."""
    out = []
    for name, bar in TARGETS.items():
        value = figures[name]
        if (value > bar) if isinstance(bar, int) and name.endswith("violations") else (value < bar):
            out.append(f"{name} {value} (target {'≤' if name.endswith('violations') else '≥'} {bar})")
    return out
