"""Lists of facts at real sizes: filtered, paged, in a fixed number of queries (SPEC W-6).

Design notes: docs/design.md.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, Exists, F, Func, IntegerField, OuterRef, Q, QuerySet

from apps.consent.models import Connection, FactShare
from apps.consent.selectors.visibility import offered_lookups, shareable_facts
from apps.memory.models import Category, Fact, FactStatus

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser
    from django_stubs_ext import StrOrPromise

    from apps.accounts.models import User

    Person = User | AnonymousUser  # request.user of a page behind the login

# SPEC W-6 (home)
FACTS_PER_PAGE = 20  # each fact carries its edit form
SHARES_PER_PAGE = 40
SHARE_VALUE_CHARS = 140  # a fact's value on the sharing form, up to 300 in full
SHARE_ROW_FIELDS = ("id", "category", "label", "value", "version")  # what a row of the sharing form reads
BLOCKED_LIMIT = 50  # facts listed by name under "cannot be shared"; the rest are counted

class CategoryOrder(Func):
    """A fact's category's place in ``Category``: ``CASE category WHEN 'basic' THEN 0 … ELSE n END``.

    Written as one SQL expression: the same ``Case`` of ``When`` lookups cost each list statement a few
    thousand Python calls to build and compile, on pages that run several (SPEC W-6)."""

    output_field = IntegerField()

    def __init__(self) -> None:
        super().__init__(F("category"))

    def as_sql(self, compiler: Any, connection: Any, **extra: Any) -> tuple[str, list[Any]]:  # type: ignore[override]
        column, params = compiler.compile(self.source_expressions[0])
        whens = " ".join(["WHEN %s THEN %s"] * len(Category.values))
        places = [value for place, code in enumerate(Category.values) for value in (code, place)]
        return f"CASE {column} {whens} ELSE %s END", [*params, *places, len(Category.values)]


def in_order(queryset: QuerySet[Fact]) -> QuerySet[Fact]:
    return queryset.alias(category_order=CategoryOrder()).order_by("category_order", "id")


def narrowed(queryset: QuerySet[Fact], *, category: str = "", q: str = "", **_: Any) -> QuerySet[Fact]:
    """Facts of one category and holding all the given words, in label or value (case-insensitive)."""
    if category:
        queryset = queryset.filter(category=category)
    for word in q.split()[:8]:
        queryset = queryset.filter(Q(label__icontains=word) | Q(value__icontains=word))
    return queryset


def by_state(queryset: QuerySet[Fact], state: str, shares: QuerySet[FactShare]) -> QuerySet[Fact]:
    """``shared``: some share in ``shares`` holds the fact's current version; ``not_shared``: none does;
    ``changed``: one holds an older version only (SPEC C-2).
    """
    of_fact = shares.filter(fact_id=OuterRef("pk"))
    current = Exists(of_fact.filter(fact_version=OuterRef("version")))
    if state == "shared":
        return queryset.filter(current)
    if state == "not_shared":
        return queryset.filter(~current)
    if state == "changed":
        return queryset.filter(Exists(of_fact.exclude(fact_version=OuterRef("version"))), ~current)
    return queryset


def page_of(queryset: QuerySet[Any], number: int | str | None, per_page: int, *, count: int | None = None) -> Page[Any]:
    """One page; a number past the end shows the last, anything else the first.

    ``count``: the rows' number when an earlier statement already counted them (no ``COUNT`` of its own)."""
    paginator = Paginator(queryset, per_page)
    if count is not None:
        paginator.count = count  # a cached_property, set before it is first read
    return paginator.get_page(number)


def page_holding(queryset: QuerySet[Fact], fact: Fact, per_page: int) -> int:
    """The page number ``fact`` is on in ``in_order(queryset)`` — one count."""
    index = Category.values.index(fact.category) if fact.category in Category.values else len(Category.values)
    before = queryset.filter(Q(category__in=Category.values[:index]) | Q(category=fact.category, id__lt=fact.pk))
    return before.count() // per_page + 1


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
    name: StrOrPromise
    shareable: bool
    count: int = 0  # the category's active facts, filtered or not
    rows: list[FactRow] = field(default_factory=list)


@dataclass
class FactsPage:
    groups: list[CategoryGroup]  # every category, with its count; rows only on this page's
    page: Page[Any]
    filters: dict[str, Any]
    total: int  # active facts, unfiltered
    archived_count: int

    @property
    def rows(self) -> list[FactRow]:
        return [row for group in self.groups for row in group.rows]


def active_facts(owner_id: int) -> QuerySet[Fact]:
    return Fact.objects.filter(owner_id=owner_id, status=FactStatus.ACTIVE)


def live_shares(user: User) -> QuerySet[FactShare]:
    return FactShare.objects.filter(connection__user=user, connection__revoked_at__isnull=True)


def facts_page(*, user: User, filters: dict[str, Any], number: int | str | None = 1) -> FactsPage:
    """One page of the person's facts as ``filters`` select, each with how many assistants hold it (SPEC W-2)."""
    archived = filters.get("state") == "archived"
    base = Fact.objects.filter(owner=user, status=FactStatus.ARCHIVED) if archived else active_facts(user.pk)
    chosen = by_state(narrowed(base, **filters), filters.get("state", ""), live_shares(user))
    page = page_of(in_order(chosen), number, FACTS_PER_PAGE)
    facts = list(page.object_list)
    current: Counter[int] = Counter()
    changed: Counter[int] = Counter()
    versions = {fact.pk: fact.version for fact in facts}
    for fact_id, version in live_shares(user).filter(fact_id__in=versions).values_list("fact_id", "fact_version"):
        (current if versions[fact_id] == version else changed)[fact_id] += 1
    counts = dict(active_facts(user.pk).values_list("category").annotate(n=Count("id")).order_by())
    groups = {code: CategoryGroup(code, label, Category.is_shareable(code), counts.get(code, 0))
              for code, label in Category.choices}
    for fact in facts:
        groups[fact.category].rows.append(FactRow(fact, current[fact.pk], changed[fact.pk]))
    archived_count = Fact.objects.filter(owner=user, status=FactStatus.ARCHIVED).count()
    return FactsPage(groups=list(groups.values()), page=page, filters=filters, total=sum(counts.values()),
                     archived_count=archived_count)


# --- The sharing form of one connection ------------------------------------------


@dataclass
class ShareRow:
    fact: Fact
    shared_version: int | None
    ticked: bool = False  # as the form shows it: the person's unsaved choice, else what is shared

    @property
    def short_value(self) -> str:
        """The value cut to ``SHARE_VALUE_CHARS`` with an ellipsis: the label says which fact it is."""
        value = self.fact.value
        return value if len(value) <= SHARE_VALUE_CHARS else value[: SHARE_VALUE_CHARS - 1] + "…"

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
    reasons: list[StrOrPromise]


def sharing_choices(connection: Connection, filters: dict[str, Any]) -> QuerySet[Fact]:
    """The facts the sharing form offers under ``filters``, in the order it shows them."""
    shares = FactShare.objects.filter(connection=connection)
    chosen = narrowed(shareable_facts(connection=connection), **filters)
    return in_order(by_state(chosen, filters.get("state", ""), shares))


def offer_counts(connection: Connection) -> tuple[int, int]:
    """(facts the sharing form offers, active facts it never can), unfiltered, in one statement."""
    offered = Q(**offered_lookups(connection))
    counts = active_facts(connection.user_id).aggregate(active=Count("id"), offered=Count("id", filter=offered))
    return counts["offered"], counts["active"] - counts["offered"]


def not_shareable(connection: Connection) -> QuerySet[Fact]:
    """The person's active facts the sharing form never offers (the complement of ``shareable_facts``)."""
    offered = shareable_facts(connection=connection).values("pk")
    return in_order(active_facts(connection.user_id).exclude(pk__in=offered))
