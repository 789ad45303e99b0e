"""What each /me/ page shows: one read per page, a fixed number of queries.

These are the page selectors (HackSoft style): they read, they never write,
and every query is scoped to the person who asks. The visibility rule itself
stays in ``apps.consent.selectors`` (SPEC C-1); here it is only explained.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from django.apps import apps as django_apps
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy as _

from apps.common import clock
from apps.consent import selectors
from apps.consent.models import AccessEvent, Connection, FactShare, Proposal
from apps.consent.proposal_selectors import pending_proposals, proposal_for_user
from apps.memory.models import Category, Certainty, Fact, FactStatus

# A replayed refresh token or authorization code revoked a token family (SPEC A-3).
REPLAY_REASONS = ("refresh_replay", "code_replay")
HISTORY_LIMIT = 100

# Plain words for the tools that send facts (SPEC M-2, D-8); unknown tools show their name.
TOOL_WORDS = {
    "get_user_context": _("Overview of your shared facts"),
    "read_user_context_page": _("Next page of your shared facts"),
    "search_user_context": _("Search in your shared facts"),
    "lifeos://profile/summary": _("Overview of your shared facts"),
    "memory_list": _("List of your memory records"),
    "memory_search": _("Search in your memory records"),
    "memory_read": _("One of your memory records"),
}


# --- Personal info ---------------------------------------------------------------


@dataclass
class FactRow:
    fact: Fact
    shared_with: int = 0  # active assistants holding the current version (SPEC C-1)
    changed_for: int = 0  # active assistants holding an older version (SPEC C-2)
    form: object = None  # the edit form, set by the view


@dataclass
class CategoryGroup:
    code: str
    name: str
    shareable: bool
    rows: list[FactRow] = field(default_factory=list)


@dataclass
class FactsPage:
    groups: list[CategoryGroup]
    archived: list[Fact]

    @property
    def rows(self):
        return [row for group in self.groups for row in group.rows]


def facts_page(*, user) -> FactsPage:
    """The person's facts by category, each with how many assistants hold it (SPEC W-2)."""
    facts = list(Fact.objects.filter(owner=user).order_by("id"))
    current, changed = Counter(), Counter()
    versions = {fact.pk: fact.version for fact in facts}
    shares = FactShare.objects.filter(fact__owner=user, connection__revoked_at__isnull=True)
    for fact_id, version in shares.values_list("fact_id", "fact_version"):
        (current if versions.get(fact_id) == version else changed)[fact_id] += 1
    groups = {code: CategoryGroup(code, label, Category.is_shareable(code)) for code, label in Category.choices}
    archived = []
    for fact in facts:
        if fact.status == FactStatus.ARCHIVED:
            archived.append(fact)
            continue
        groups[fact.category].rows.append(FactRow(fact, current[fact.pk], changed[fact.pk]))
    return FactsPage(groups=list(groups.values()), archived=archived)


def fact_for(*, user, fact_id: int) -> Fact:
    """One of the person's own facts, or 404 (another person's fact does not exist here)."""
    return get_object_or_404(Fact, pk=fact_id, owner=user)


def proposal_for(*, user, proposal_id: int) -> Proposal:
    """A proposal made to one of the person's own connections, or 404."""
    proposal = proposal_for_user(user=user, proposal_id=proposal_id)
    if proposal is None:
        raise Http404("no such proposal")
    return proposal


# --- Connected assistants ----------------------------------------------------------


def connection_for(*, user, connection_id: int) -> Connection:
    """One of the person's own connections, or 404."""
    return get_object_or_404(Connection.objects.select_related("application"), pk=connection_id, user=user)


def replay_notices(*, user) -> dict[int, object]:
    """application id → time of the latest token replay that revoked a token family (SPEC A-3).

    The model is looked up by label: the pages read it, but ``consent`` must not
    import ``oauth`` (dependencies point ``oauth → consent``).
    """
    token_family = django_apps.get_model("oauth", "TokenFamily")
    rows = (
        token_family.objects.filter(user=user, revoked_reason__in=REPLAY_REASONS, revoked_at__isnull=False)
        # The notice ends with its family, whether or not the purge has forgotten the row yet (SPEC J-2).
        .filter(consented_at__gte=token_family.kept_since(clock.now()))
        .order_by("application_id", "revoked_at")
        .values_list("application_id", "revoked_at")
    )
    return dict(rows)  # later rows win: the latest per application


@dataclass
class AssistantCard:
    connection: Connection
    shared_count: int
    replay_at: object = None


def assistants_page(*, user) -> dict:
    """Every connection of the person, active first (SPEC W-3)."""
    connections = list(selectors.connections_for(user=user))
    replays = replay_notices(user=user)
    # One count per assistant, through the one home of the visibility rule (SPEC C-1).
    cards = [
        AssistantCard(c, selectors.visible_facts(connection=c).count() if c.is_active else 0,
                      replays.get(c.application_id))
        for c in connections
    ]
    return {
        "active": [card for card in cards if card.connection.is_active],
        "revoked": [card for card in cards if not card.connection.is_active],
    }


@dataclass
class ShareRow:
    fact: Fact
    shared_version: int | None

    @property
    def shared(self) -> bool:
        return self.shared_version == self.fact.version

    @property
    def changed(self) -> bool:
        """Shared once, edited since: the share no longer counts (SPEC C-2)."""
        return self.shared_version is not None and self.shared_version != self.fact.version


@dataclass
class BlockedRow:
    fact: Fact
    reasons: list


@dataclass
class HistoryItem:
    fact_id: int
    version_sent: int
    fact: Fact | None

    @property
    def state(self) -> str:
        if self.fact is None:
            return "deleted"
        if self.fact.status == FactStatus.ARCHIVED:
            return "archived"
        return "changed" if self.fact.version != self.version_sent else "current"


@dataclass
class HistoryEvent:
    event: AccessEvent
    items: list[HistoryItem]
    records: list[str] = field(default_factory=list)  # "<type>:<id>" of memory records sent (SPEC R-11)

    @property
    def tool_words(self):
        return TOOL_WORDS.get(self.event.tool, "")


def blocked_reasons(fact: Fact, granted: set[str]) -> list:
    """Why a fact can never be shared with this assistant, in plain words (SPEC C-1, D-2)."""
    reasons = []
    if not Category.is_shareable(fact.category):
        reasons.append(_("%(category)s facts are never shared with assistants.")
                       % {"category": Category(fact.category).label})
    elif fact.category not in granted:
        reasons.append(_("This assistant was not given access to %(category)s.")
                       % {"category": Category(fact.category).label})
    if fact.sensitive:
        reasons.append(_("Marked sensitive."))
    if fact.certainty != Certainty.CONFIRMED:
        reasons.append(_("Only a guess — confirm it on Personal info first."))
    return reasons


def sharing_rows(*, connection: Connection, shared: dict[int, int]) -> tuple[list[ShareRow], list[BlockedRow]]:
    """The sharing form's choices and, apart, the person's facts that cannot be chosen."""
    shareable = list(selectors.shareable_facts(connection=connection))
    rows = [ShareRow(fact, shared.get(fact.pk)) for fact in shareable]
    granted = set(selectors.connection_categories(connection))
    others = (
        Fact.objects.filter(owner_id=connection.user_id, status=FactStatus.ACTIVE)
        .exclude(pk__in=[fact.pk for fact in shareable])
        .order_by("category", "id")
    )
    blocked = [BlockedRow(fact, blocked_reasons(fact, granted)) for fact in others]
    order = {code: index for index, code in enumerate(Category.values)}
    rows.sort(key=lambda row: (order[row.fact.category], row.fact.pk))
    blocked.sort(key=lambda row: (order[row.fact.category], row.fact.pk))
    return rows, blocked


def history(*, connection: Connection, limit: int = HISTORY_LIMIT) -> list[HistoryEvent]:
    """What the assistant was sent, fact by fact, resolved to today's labels (SPEC D-8)."""
    events = list(selectors.access_history(connection=connection, limit=limit))
    ids = {int(pair[0]) for event in events for pair in event.facts if _pair_ok(pair)}
    facts = Fact.objects.filter(owner_id=connection.user_id, pk__in=ids).in_bulk() if ids else {}
    return [
        HistoryEvent(
            event,
            [HistoryItem(int(p[0]), int(p[1]), facts.get(int(p[0]))) for p in event.facts if _pair_ok(p)],
            [entry for entry in event.facts if isinstance(entry, str)],
        )
        for event in events
    ]


def _pair_ok(pair) -> bool:
    return isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(x, int) for x in pair)


@dataclass
class ProposalItem:
    proposal: Proposal
    state: str  # the status as of now: a pending one past its expiry shows as expired (SPEC J-2)
    target_shared: bool  # the target fact is shared with this connection (any version)
    form: object = None  # the edit form, set by the view


def proposal_items(*, connection: Connection, shared: dict[int, int]) -> tuple[list, list]:
    """(needing attention: pending and conflicts; decided: confirmed, ignored, expired), newest first (SPEC P-6)."""
    now = clock.now()
    pending = list(pending_proposals(connection=connection))
    decided = (
        Proposal.objects.filter(connection=connection)
        .exclude(status=Proposal.Status.PENDING, expires_at__gt=now)
        .select_related("target_fact", "result_fact")
        .order_by("-created_at", "-id")[:HISTORY_LIMIT]
    )
    items = [ProposalItem(p, p.status_at(now), p.target_fact_id in shared) for p in [*pending, *decided]]
    attention = [item for item in items if item.state in ("pending", "conflict")]
    earlier = [item for item in items if item.state not in ("pending", "conflict")]
    return attention, earlier


def connection_page(*, user, connection_id: int) -> dict:
    """Everything on one connection's page, in a fixed number of queries (SPEC W-3)."""
    connection = connection_for(user=user, connection_id=connection_id)
    page = {
        "connection": connection,
        "replay_at": replay_notices(user=user).get(connection.application_id),
        "history": history(connection=connection),
        "history_limit": HISTORY_LIMIT,
        "share_rows": [],
        "blocked_rows": [],
    }
    if connection.is_active:
        shared = selectors.shares_for(connection=connection)
        page["share_rows"], page["blocked_rows"] = sharing_rows(connection=connection, shared=shared)
        page["open_proposals"], page["closed_proposals"] = proposal_items(connection=connection, shared=shared)
        page["pending_count"] = sum(1 for item in page["open_proposals"] if item.state == "pending")
    return page

