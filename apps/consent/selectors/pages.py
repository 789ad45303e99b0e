"""What each /me/ page shows: one read per page, a fixed number of queries.

They read, never write, and every query is scoped to the person who asks; the rule is ``visibility`` (SPEC C-1)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.apps import apps as django_apps
from django.core.paginator import Page
from django.db.models import Count, Max, Q
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy as _

from apps.common import clock
from apps.common.replicas import pinned_tolerating_lag
from apps.consent.forms import FactFilterForm
from apps.consent.models import AccessEvent, Connection, Proposal
from apps.consent.selectors import access, fact_lists, visibility
from apps.consent.selectors.fact_lists import (  # noqa: F401 - read as pages.*
    BLOCKED_LIMIT,
    BlockedRow,
    ShareRow,
    facts_page,
    page_of,
)
from apps.consent.selectors.proposals import proposal_for_user
from apps.memory.models import Category, Certainty, Fact, FactStatus

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

    from apps.accounts.models import User

    Draft = dict[int, tuple[bool, int | None]]  # fact id → (ticked, the version shown)

# A replayed refresh token or authorization code revoked a token family (SPEC A-3).
REPLAY_REASONS = ("refresh_replay", "code_replay")
HISTORY_PER_PAGE = 5  # a phone screen or two; the pager and the download have the rest
ITEMS_PER_EVENT = 5  # facts listed per event: one call may send thousands
PROPOSALS_PER_PAGE = 10

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


# --- Single rows ------------------------------------------------------------------


def fact_for(*, user: User, fact_id: int) -> Fact:
    """One of the person's own facts, or 404 (another person's fact does not exist here)."""
    return get_object_or_404(Fact, pk=fact_id, owner=user)


def proposal_for(*, user: User, proposal_id: int) -> Proposal:
    """A proposal made to one of the person's own connections, or 404."""
    proposal = proposal_for_user(user=user, proposal_id=proposal_id)
    if proposal is None:
        raise Http404("no such proposal")
    return proposal


# --- Connected assistants ----------------------------------------------------------


def connection_for(*, user: User, connection_id: int) -> Connection:
    """One of the person's own connections, or 404."""
    return get_object_or_404(Connection.objects.select_related("application"), pk=connection_id, user=user)


def replay_notices(*, user: User) -> dict[int, object]:
    """application id → time of the latest token replay that revoked a token family (SPEC A-3).

    The model is looked up by label: ``consent`` must not import ``oauth`` (dependencies point ``oauth → consent``)."""
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
    waiting: int = 0  # suggestions waiting (SPEC W-7), from the header's count


def assistants_page(*, user: User, waiting: Mapping[int | None, int] | None = None) -> dict[str, Any]:
    """Every connection of the person, active first (SPEC W-3); ``waiting``: connection id → suggestions waiting."""
    connections = list(visibility.connections_for(user=user))
    replays = replay_notices(user=user)
    counts = visibility.visible_counts(connections=connections)  # one query, however many assistants
    waiting = waiting or {}
    cards = [AssistantCard(c, counts.get(c.pk, 0), replays.get(c.application_id), waiting.get(c.pk, 0))
             for c in connections]
    return {
        "active": [card for card in cards if card.connection.is_active],
        "revoked": [card for card in cards if not card.connection.is_active],
    }


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
    more: int = 0  # facts sent beyond those listed (the download has them all)

    @property
    def tool_words(self) -> StrOrPromise:
        return TOOL_WORDS.get(self.event.tool, "")


def blocked_reasons(fact: Fact, granted: set[str]) -> list[StrOrPromise]:
    """Why a fact can never be shared with this assistant, in plain words (SPEC C-1, D-2)."""
    reasons: list[StrOrPromise] = []
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


def history_page(*, connection: Connection, number: int | str | None = 1) -> Page[Any]:
    """One page of what the assistant was sent, fact by fact, resolved to today's labels (SPEC D-8)."""
    page = pinned_tolerating_lag(lambda alias: _events_page(connection, number, alias))  # SPEC O-4
    sent = {event.pk: [pair for pair in event.facts if _pair_ok(pair)] for event in page.object_list}
    ids = {int(pair[0]) for pairs in sent.values() for pair in pairs[:ITEMS_PER_EVENT]}
    facts = (Fact.objects.filter(owner_id=connection.user_id, pk__in=ids).only("id", "label", "version", "status")
             .in_bulk() if ids else {})  # what a history line shows
    page.object_list = [
        HistoryEvent(
            event,
            [HistoryItem(int(p[0]), int(p[1]), facts.get(int(p[0]))) for p in sent[event.pk][:ITEMS_PER_EVENT]],
            [entry for entry in event.facts if isinstance(entry, str)][:ITEMS_PER_EVENT],
            more=max(0, len(sent[event.pk]) - ITEMS_PER_EVENT),
        )
        for event in page.object_list
    ]
    return page


def _events_page(connection: Connection, number: int | str | None, alias: str) -> Page[Any]:
    events = access.retained_access_events(using=alias).filter(connection=connection).order_by("-created_at", "-id")
    page = page_of(events, number, HISTORY_PER_PAGE)
    page.object_list = list(page.object_list)  # read here, where a failing replica can be read around
    return page


def _pair_ok(pair: object) -> bool:
    return isinstance(pair, (list, tuple)) and len(pair) == 2 and all(isinstance(x, int) for x in pair)


@dataclass
class ProposalItem:
    proposal: Proposal
    state: str  # the status as of now: a pending one past its expiry shows as expired (SPEC J-2)
    target_shared: bool  # the target fact is shared with this connection (any version)
    form: object = None  # the edit form, set by the view
    slot_shared: bool = False  # the fact it changes is shared with this connection (SPEC P-9)

    @property
    def slot_fact(self) -> Fact | None:
        """The active fact this ``add`` changes or already says (SPEC P-9), as judged; else None (a new fact)."""
        fact = self.proposal.slot_fact
        return fact if self.proposal.slot and fact is not None and fact.status == FactStatus.ACTIVE else None


def proposal_pages(
    *, connection: Connection | None, shared: dict[int, int], waiting: int | str | None = 1,
    earlier: int | str | None = None, owner: User | None = None,
) -> dict[str, Any]:
    """The suggestions part: the counts, the page needing attention (pending and conflicts) and, when asked
    for (``earlier``), the page of decided ones (confirmed, ignored, expired), newest first.

    ``connection``'s suggestions, or with ``connection=None`` the imported suggestions of ``owner`` (SPEC P-10).
    A pending proposal past its expiry counts as expired even before the sweep ran (SPEC P-6, J-2).
    Three statements at most: the counts in one, then each page shown; what each ``add`` is to the person's
    facts was judged when it was made (SPEC P-9) and comes with its row.
    """
    now = clock.now()
    inbox = (Proposal.objects.filter(connection=connection) if connection is not None
             else Proposal.objects.filter(owner=owner, source=Proposal.Source.IMPORT))
    proposals = inbox.select_related("target_fact", "result_fact", "slot_fact").order_by("-created_at", "-id")
    pending = Q(status=Proposal.Status.PENDING, expires_at__gt=now)
    attention = pending | Q(status=Proposal.Status.CONFLICT)
    counts = inbox.aggregate(
        attention=Count("id", filter=attention), decided=Count("id", filter=~attention),
        pending=Count("id", filter=pending), newest=Max("id", filter=pending))

    def items(page: Page[Any]) -> Page[Any]:
        page.object_list = [ProposalItem(p, p.status_at(now), p.target_fact_id in shared,
                                         slot_shared=p.slot_fact_id in shared) for p in page.object_list]
        return page

    decided = earlier not in (None, "") and counts["decided"]
    return {
        "open_proposals": items(page_of(proposals.filter(attention), waiting, PROPOSALS_PER_PAGE,
                                        count=counts["attention"])),
        # Decided suggestions are history: listed only when asked for, so a long past costs the page nothing.
        "closed_proposals": items(page_of(proposals.exclude(attention), earlier, PROPOSALS_PER_PAGE,
                                          count=counts["decided"])) if decided else None,
        "decided_count": counts["decided"],
        "pending_count": counts["pending"],
        "newest_pending": counts["newest"],
    }


def sharing_part(
    *, connection: Connection, shared: dict[int, int], query: Mapping[str, Any], draft: Draft,
) -> dict[str, Any]:
    """The sharing form: one page of the offered facts the filter selects, ticked as the person left them."""
    form = FactFilterForm(query, categories=visibility.connection_categories(connection))
    filters = form.values()
    offered, blocked_count = fact_lists.offer_counts(connection)
    shown = fact_lists.sharing_choices(connection, filters).only(*fact_lists.SHARE_ROW_FIELDS)
    page = page_of(shown, query.get("page"), fact_lists.SHARES_PER_PAGE,
                   count=None if any(filters.values()) else offered)
    page.object_list = [
        ShareRow(
            fact, shared.get(fact.pk), draft[fact.pk][0] if fact.pk in draft else shared.get(fact.pk) == fact.version
        )
        for fact in page.object_list
    ]
    granted = set(visibility.connection_categories(connection))
    # Listed only when asked for: they cannot be ticked, so a long list would only weigh the page down.
    listed = fact_lists.not_shareable(connection)[:BLOCKED_LIMIT] if query.get("blocked") else []
    return {
        "share_filter": form,
        "share_filters": filters,
        "share_page": page,
        "share_offered": bool(page.paginator.count) or any(filters.values()),
        "blocked_rows": [BlockedRow(fact, blocked_reasons(fact, granted)) for fact in listed],
        "blocked_count": blocked_count,
        "unsaved": sum(1 for fid, (ticked, version) in draft.items() if ticked != (shared.get(fid) == version)),
    }


def connection_page(
    *, user: User, connection_id: int, query: Mapping[str, Any] | None = None, draft: Draft | None = None,
) -> dict[str, Any]:
    """Everything on one connection's page, in a fixed number of queries whatever the counts (SPEC W-3, W-6).

    ``query``: the page's GET parameters; ``draft``: unsaved sharing choices, fact id → (ticked, version shown)."""
    query = query if query is not None else {}
    connection = connection_for(user=user, connection_id=connection_id)
    page = {
        "connection": connection,
        "replay_at": replay_notices(user=user).get(connection.application_id),
        "history_page": history_page(connection=connection, number=query.get("history")),
    }
    if connection.is_active:
        shared = visibility.shares_for(connection=connection)
        page.update(sharing_part(connection=connection, shared=shared, query=query, draft=draft or {}))
        page.update(proposal_pages(connection=connection, shared=shared, waiting=query.get("suggestions"),
                                   earlier=query.get("earlier")))
    return page
