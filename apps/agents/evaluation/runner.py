"""Run the evaluation set through a real agent run and measure it.

Also SPEC S-4. Design notes: docs/design.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from oauth2_provider.models import get_application_model

from apps.agents.evaluation import dataset as data
from apps.agents.evaluation import meaning
from apps.agents.evaluation.checks import violations
from apps.agents.services import policy_create, policy_grant_set, run_access, run_start
from apps.retrieval.layer import handle, pointers
from apps.retrieval.layer.registry import registry

if TYPE_CHECKING:
    from apps.accounts.models import User
    from apps.agents.models import AgentPolicy

TOP = 5
OPS = ["list", "read", "search"]


@dataclass
class Report:
    users: int = 0
    records: int = 0
    questions: int = 0
    expected_refs: int = 0
    found_refs: int = 0
    paraphrase_refs: int = 0
    paraphrase_found: int = 0
    facts: meaning.FactReport | None = None
    evidence_needed: int = 0
    evidence_hit: int = 0
    field_violations: int = 0
    paged_reads: int = 0
    paged_complete: int = 0
    pages: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def recall_at_5(self) -> float:
        return self.found_refs / self.expected_refs if self.expected_refs else 1.0

    @property
    def paraphrase_recall_at_5(self) -> float:
        return self.paraphrase_found / self.paraphrase_refs if self.paraphrase_refs else 1.0

    @property
    def evidence_hit_rate(self) -> float:
        return self.evidence_hit / self.evidence_needed if self.evidence_needed else 1.0

    @property
    def paging_completion_rate(self) -> float:
        return self.paged_complete / self.paged_reads if self.paged_reads else 1.0

    def as_dict(self) -> dict:
        return {
            "users": self.users, "records": self.records, "questions": self.questions,
            "recall_at_5": round(self.recall_at_5, 4),
            "paraphrase_recall_at_5": round(self.paraphrase_recall_at_5, 4),
            "facts_keyword_recall_at_5": round(self.facts.recall("keyword"), 4) if self.facts else None,
            "facts_paraphrase_recall_at_5": round(self.facts.recall("paraphrase"), 4) if self.facts else None,
            "evidence_hit_rate": round(self.evidence_hit_rate, 4),
            "field_violations": self.field_violations,
            "paging_completion_rate": round(self.paging_completion_rate, 4),
            "paged_reads": self.paged_reads, "pages": self.pages, "failures": self.failures,
        }


class _Session:
    """One agent run; every answer is checked for field violations as it arrives."""

    def __init__(self, policy: AgentPolicy, user: User, report: Report, thread: str) -> None:
        self.policy, self.report, self.thread = policy, report, thread
        self.run = run_start(policy=policy, user_id=user.pk, thread_id=thread)

    def call(self, operation: str, **body: Any) -> dict[str, Any]:
        access = run_access(policy=self.policy, run_id=self.run.run_id, thread_id=self.thread)
        answer = handle(access, operation, body)
        shown = violations(access, operation, answer)
        if shown:
            self.report.field_violations += len(shown)
            self.report.failures.append(f"{operation} showed {', '.join(shown)}")
        return answer

    def read_whole(self, ref: str) -> dict:
        from apps.agents.evaluation.reassembly import reassemble

        pages = [self.call("read", ref=ref)]
        while pages[-1]["next_cursor"]:
            pages.append(self.call("read", ref=ref, cursor=pages[-1]["next_cursor"]))
        if len(pages) == 1:
            return pages[0]["data"]
        self.report.paged_reads += 1
        self.report.pages += len(pages)
        doc = reassemble([f for page in pages for f in page["fragments"]])
        complete = pages[-1]["complete"] and not any(page["complete"] for page in pages[:-1])
        if complete and self._matches_source(ref, doc):
            self.report.paged_complete += 1
        else:
            self.report.failures.append(f"paging of {ref} did not complete to the record")
        return doc

    def _matches_source(self, ref: str, doc: dict) -> bool:
        from apps.retrieval.layer import documents
        from apps.retrieval.layer.access import view

        resource_type, pk = ref.split(":")
        access = run_access(policy=self.policy, run_id=self.run.run_id, thread_id=self.thread)
        v = view(access, resource_type)
        assert v is not None  # the ref came from a search of this run
        instance = v.resource.adapter.records(access.user_id).get(pk=int(pk))
        source = v.resource.adapter.document(instance, v.readable_top_level())
        return documents.project(v.resource.declaration, source, v.leaves)[0] == doc


def _agent(report: Report) -> AgentPolicy:
    application = get_application_model().objects.create(
        name="retrieval evaluation", client_type="confidential", authorization_grant_type="client-credentials")
    grants = {r.type: {"operations": OPS, "fields": [""]} for r in registry.all()}
    # The todo notes are withheld: the passport number written there must never decide a match.
    todo = registry.get("todo").declaration  # type: ignore[union-attr]  # a built-in type
    grants["todo"]["fields"] = [f.path for f in todo.fields if "/" not in f.path[1:] and f.path != "/notes"]
    return policy_create(agent_id=f"evaluation-{application.pk}", name="Evaluation", application=application,
                         grants=grants)


def _top(session: _Session, question: data.Question) -> list[str]:
    body = {"query": question.query, "top_k": TOP}
    if question.resource:
        body["resource"] = question.resource
    return [hit["ref"] for hit in session.call("search", **body)["hits"]]


def evaluate(dataset: data.Dataset) -> Report:
    report = Report(users=2, records=dataset.records, questions=len(dataset.questions))
    policy = _agent(report)
    session = _Session(policy, dataset.user, report, thread="evaluation")
    for q in dataset.questions:
        top = _top(session, q)
        if q.kind == "forbidden":
            if top:
                report.field_violations += len(top)
                report.failures.append(f"{q.id}: text only in a forbidden field matched {top}")
            continue
        found = q.expected & set(top)
        if q.kind == "paraphrase":
            report.paraphrase_refs += len(q.expected)
            report.paraphrase_found += len(found)
        else:
            report.expected_refs += len(q.expected)
            report.found_refs += len(found)
        if found != q.expected:
            report.failures.append(f"{q.id}: expected {sorted(q.expected)} in the top {TOP}, got {top}")
        if q.kind in ("search", "paraphrase"):
            continue
        report.evidence_needed += 1
        if _evidence(session, q, top, policy, dataset):
            report.evidence_hit += 1
        else:
            report.failures.append(f"{q.id}: the evidence was not where the answer needs it")
    report.facts = meaning.evaluate_facts(dataset.other_user)
    report.failures += report.facts.failures
    return report


def _evidence(
    session: _Session, q: data.Question, top: list[str], policy: AgentPolicy, dataset: data.Dataset
) -> bool:
    if not top:
        return False
    if q.kind == "decision":
        return q.evidence in session.read_whole(top[0]).get("summary", "")
    if q.kind == "open_todos":
        todos = session.read_whole(top[0]).get("todos", [])
        still_open = {ref for ref in todos if session.read_whole(ref).get("status") == "open"}
        return still_open == q.answer_refs
    if q.kind == "quote":
        hits = session.call("search", query=q.query, resource=q.resource, top_k=1)["hits"]
        doc = session.read_whole(hits[0]["ref"])
        tokens = pointers.split(hits[0]["snippet"]["path"])
        value: Any = doc
        for token in tokens:
            value = value[int(token)] if isinstance(value, list) else value.get(token)
        return value == q.evidence
    if q.kind == "withdrawn":
        before = "notes" in session.read_whole(top[0])
        contact = registry.get("contact").declaration  # type: ignore[union-attr]  # a built-in type
        kept = [f.path for f in contact.fields if "/" not in f.path[1:] and f.path != q.evidence]
        policy_grant_set(policy=policy, resource="contact", operations=OPS, fields=kept)
        after = session.read_whole(top[0])
        if "notes" in after:
            session.report.field_violations += 1
        return before and "notes" not in after
    raise ValueError(q.kind)
