"""A person's content is masked in every admin page unless revealed; every staff change is recorded (SPEC AD-2).

Every ModelAdmin of rows that belong to a person mixes in ``PersonalAdmin``. It names the path from a row to
its person (``person``) and what may be shown without a reveal (``shown``: structure, e.g. ids, dates,
categories, status, flags, versions, which assistant). Everything else is content: in lists, forms and
read-only fields it is replaced by "hidden" and its length; lists cannot be filtered or sorted by it; search
matches only the row's id and the person's id, login and e-mail (and ``search_also``, structure the admin
names). Content shows only on the rows of the one person the staff member revealed (``staff.services.
staff_reveal``) while the reveal lasts. Admin saves, deletions and actions are recorded for the person
(``staff_access_record``). Records are named by ``__str__``, so the models of content name themselves by
type and id only: the breadcrumbs, history, delete confirmations, messages and log entries stay masked too.

Design notes: docs/privacy.md.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from django.contrib import admin
from django.contrib.admin.utils import display_for_field, display_for_value, label_for_field, lookup_field
from django.contrib.auth import get_user_model
from django.core.exceptions import FieldDoesNotExist
from django.db import transaction
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from apps.staff.selectors import revealed_person_id
from apps.staff.services import staff_access_record

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

HIDDEN = "hidden__"  # prefix of the read-only stand-in of a content field in a change form
REVEAL_LINK = "staff_reveal_link"
ALWAYS_SHOWN = ("action_checkbox", REVEAL_LINK)
_UNSET = object()


def record_ref(model: type[Model] | Model, pk: Any) -> str:
    """How a record is named in the staff access record: ``fact:12``."""
    return f"{model._meta.model_name}:{pk}"


def masked_text(value: Any) -> str:
    """What staff see in place of content: that it is there, and its size, never a character of it."""
    if isinstance(value, str):
        return ngettext("hidden · %(n)d character", "hidden · %(n)d characters", len(value)) % {"n": len(value)}
    if isinstance(value, (list, tuple, dict)):
        return ngettext("hidden · %(n)d item", "hidden · %(n)d items", len(value)) % {"n": len(value)}
    return str(_("hidden"))


# SPEC AD-2 (home)
class PersonalAdmin(admin.ModelAdmin):
    """The admin of rows that belong to a person: content masked unless revealed, staff changes recorded."""

    person: ClassVar[str] = "owner"  # path from a row to its person; "" when the row is the person
    shown: ClassVar[tuple[str, ...]] = ()  # field and column names that are structure, never content
    search_also: ClassVar[tuple[str, ...]] = ()  # structural lookups searched besides id, login and e-mail

    # --- whose row, and is it revealed -------------------------------------------------------------

    def person_id(self, obj: Model) -> Any:
        if not self.person:
            return obj.pk
        *path, last = self.person.split("__")
        for part in path:
            obj = getattr(obj, part)
            if obj is None:
                return None
        return getattr(obj, f"{last}_id")

    def revealed_id(self, request: HttpRequest) -> int | None:
        """The person this request's staff member may read (one query per request)."""
        cached = getattr(request, "_staff_revealed_id", _UNSET)
        if cached is _UNSET:
            cached = revealed_person_id(staff=request.user)
            request._staff_revealed_id = cached  # type: ignore[attr-defined]
        return cached  # type: ignore[return-value]

    def revealed(self, request: HttpRequest, obj: Model | None) -> bool:
        revealed = self.revealed_id(request)
        return obj is not None and revealed is not None and self.person_id(obj) == revealed

    def hides(self, name: Any) -> bool:
        if callable(name):
            name = getattr(name, "__name__", "")
        # A stand-in is what is shown in a content field's place: a form laid out from its fields (no ``fields``
        # declared) lists the stand-ins among its read-only fields.
        return name not in self.shown and name not in ALWAYS_SHOWN and not str(name).startswith(HIDDEN)

    # --- what is displayed ---------------------------------------------------------------------------

    def _label(self, name: Any) -> StrOrPromise:
        try:
            return label_for_field(name, self.model, self)  # type: ignore[return-value]  # a label alone without return_attr
        except (AttributeError, FieldDoesNotExist):
            return str(name)

    def _mask(self, obj: Model, name: Any) -> str:
        try:
            field = self.model._meta.get_field(name) if isinstance(name, str) else None
        except FieldDoesNotExist:
            field = None
        if field is None or field.is_relation:
            return str(_("hidden"))
        return masked_text(field.value_from_object(obj))

    def _display(self, obj: Model, name: Any) -> Any:
        field, attr, value = lookup_field(name, obj, self)
        empty = self.get_empty_value_display()
        if field is None:
            return display_for_value(value, empty, getattr(attr, "boolean", False))
        return display_for_field(value, field, empty)

    def _column(self, name: Any, revealed: int | None) -> Callable[[Model], Any]:
        def column(obj: Model) -> Any:
            if revealed is not None and self.person_id(obj) == revealed:
                return self._display(obj, name)
            return self._mask(obj, name)

        column.short_description = self._label(name)  # type: ignore[attr-defined]
        column.__name__ = HIDDEN + getattr(name, "__name__", str(name))
        return column

    def __init__(self, model: type[Model], admin_site: Any) -> None:
        super().__init__(model, admin_site)
        # ``hidden__value``: the masked stand-in of ``value`` that a change form shows read-only.
        self.hidden_names = tuple(HIDDEN + name for name in self._content_names())
        for name in self._content_names():
            setattr(self, HIDDEN + name, self._stand_in(name))

    def _stand_in(self, name: str) -> Callable[[Model], str]:
        def stand_in(obj: Model) -> str:
            return self._mask(obj, name)

        stand_in.short_description = self._label(name)  # type: ignore[attr-defined]
        return stand_in

    @admin.display(description=_("content"))
    def staff_reveal_link(self, obj: Model) -> str:
        url = reverse("admin:staff_accessrecord_reveal") + "?" + urlencode({
            "person": self.person_id(obj),
            "next": reverse(f"admin:{obj._meta.app_label}_{obj._meta.model_name}_change", args=[obj.pk]),
        })
        return format_html(
            '{} <a href="{}">{}</a>', _("Hidden: this is the person's own content."),
            url, _("Reveal it with a written reason (recorded, and shown to the person)"),
        )

    def _content_names(self) -> list[str]:
        names = [field.name for field in self.model._meta.get_fields() if not field.auto_created]
        for group in (self.list_display, self.fields or (), self.readonly_fields):
            names += [name for name in _flat(group) if isinstance(name, str)]
        return [name for name in dict.fromkeys(names) if self.hides(name)]

    # --- lists ----------------------------------------------------------------------------------------

    def get_list_display(self, request: HttpRequest) -> list[Any]:
        revealed = self.revealed_id(request)
        return [self._column(name, revealed) if self.hides(name) else name
                for name in super().get_list_display(request)]

    def get_list_display_links(self, request: HttpRequest, list_display: Any) -> Any:
        links = super().get_list_display_links(request, list_display)
        if links is None:
            return None
        kept = [name for name in links if name in list_display]
        return kept or list(list_display)[:1]

    def get_list_filter(self, request: HttpRequest) -> list[Any]:
        return [item for item in super().get_list_filter(request) if self._filters_structure(item)]

    def _filters_structure(self, item: Any) -> bool:
        if isinstance(item, type) and issubclass(item, admin.SimpleListFilter):
            return True  # its choices are written in code, never read from a person's rows
        name = item[0] if isinstance(item, (list, tuple)) else item
        return isinstance(name, str) and "__" not in name and name in self.shown

    def get_search_fields(self, request: HttpRequest) -> tuple[str, ...]:
        """The row's id, the person's id, login and e-mail, and the structure the admin names: never content."""
        user = get_user_model()
        prefix = f"{self.person}__" if self.person else ""
        fields = ("pk__exact", f"{prefix}pk__exact", f"{prefix}{user.USERNAME_FIELD}",
                  f"{prefix}{user.get_email_field_name()}", *self.search_also)
        return tuple(dict.fromkeys(fields))

    def lookup_allowed(self, lookup: str, value: Any, request: HttpRequest | None = None) -> bool:
        """Filtering by query string is held to structure too: ``?value__contains=…`` is refused."""
        if not super().lookup_allowed(lookup, value, request):  # type: ignore[arg-type]  # None until Django 6
            return False
        filters = self.get_list_filter(request) if request is not None else self.list_filter
        if lookup in {getattr(item, "parameter_name", None) for item in filters if isinstance(item, type)}:
            return True
        names, relation = self._lookup_fields(lookup)
        if not names:
            return False  # neither a field nor a filter of this list
        person = self.person.split("__") if self.person else []
        if person and names[: len(person)] == person:
            return names[len(person):] in ([], ["id"])  # whose rows; Django allows no deeper lookup unasked
        if names[0] not in self.shown:
            return False
        return len(names) == 1 or (relation and names[1:] == ["id"])

    def _lookup_fields(self, lookup: str) -> tuple[list[str], bool]:
        """The field names a lookup walks (a primary key as ``id``), and whether the first is a relation."""
        names: list[str] = []
        model, relation = self.model, False
        for part in lookup.split("__"):
            try:
                field = model._meta.get_field(model._meta.pk.name if part == "pk" else part)
            except FieldDoesNotExist:
                break
            names.append("id" if field.primary_key else field.name)
            relation = relation or (len(names) == 1 and field.is_relation)
            if not field.is_relation or field.related_model is None:
                break
            model = field.related_model
        return names, relation

    # --- change forms ---------------------------------------------------------------------------------

    def get_fieldsets(self, request: HttpRequest, obj: Model | None = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)
        if obj is None or self.revealed(request, obj):
            return fieldsets
        # Each field once (a stand-in may be listed as a read-only field and as its field's place); the link first.
        seen = {REVEAL_LINK}
        masked = [(name, {**options, "fields": _masked_names(options["fields"], self.hides, seen)})
                  for name, options in fieldsets]
        if any(self.hides(name) for _, options in fieldsets for name in _flat(options["fields"])):
            masked.insert(0, (None, {"fields": [REVEAL_LINK]}))
        return masked

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> tuple[str, ...]:
        readonly = tuple(super().get_readonly_fields(request, obj))
        if obj is None or self.revealed(request, obj):
            return readonly
        return (*readonly, *self.hidden_names, REVEAL_LINK)

    # --- the record the person sees -----------------------------------------------------------------

    def record_staff_change(self, request: HttpRequest, action: str, rows: Iterable[tuple[Any, Any]]) -> None:
        """Record ``action`` on ``rows`` (pairs of a row's pk and its person's id), once per person."""
        by_person: dict[Any, list[str]] = defaultdict(list)
        for pk, person_id in rows:
            if person_id is not None:
                by_person[person_id].append(record_ref(self.model, pk))
        people = get_user_model()._default_manager.in_bulk(list(by_person))
        for person_id, refs in by_person.items():
            if person_id in people:
                staff_access_record(staff=request.user, person=people[person_id],  # type: ignore[arg-type]
                                    action=action, records=refs)  # admin views are behind a staff login

    def _rows(self, queryset: QuerySet[Any]) -> list[tuple[Any, Any]]:
        return list(queryset.values_list("pk", self.person or "pk"))

    def log_addition(self, request: HttpRequest, obj: Model, message: Any) -> Any:
        self.record_staff_change(request, "add", [(obj.pk, self.person_id(obj))])
        return super().log_addition(request, obj, message)

    def log_change(self, request: HttpRequest, obj: Model, message: Any) -> Any:
        if message:  # a save that changed nothing changed nothing of the person's
            self.record_staff_change(request, "change", [(obj.pk, self.person_id(obj))])
        return super().log_change(request, obj, message)

    def log_deletions(self, request: HttpRequest, queryset: Any) -> Any:
        rows = self._rows(queryset) if isinstance(queryset, QuerySet) else [(o.pk, self.person_id(o)) for o in queryset]
        self.record_staff_change(request, "delete", rows)
        return super().log_deletions(request, queryset)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = {}
        for name, (func, _name, description) in super().get_actions(request).items():  # type: ignore[misc]
            actions[name] = (func if name == "delete_selected" else self._recorded(func, name), name, description)
        return actions

    def _recorded(self, func: Callable[..., Any], name: str) -> Callable[..., Any]:
        """The action, and in the same transaction the record of the rows it was run on.

        An action that touches other rows than those selected records them itself (``records_itself``)."""
        if getattr(func, "records_itself", False):
            return func

        def run(modeladmin: PersonalAdmin, request: HttpRequest, queryset: QuerySet[Any]) -> Any:
            with transaction.atomic():
                rows = self._rows(queryset)
                response = func(modeladmin, request, queryset)
                self.record_staff_change(request, name, rows)
            return response

        run.__name__ = name  # permissions and description were read before the wrapping (get_actions)
        return run


def _flat(fields: Any) -> list[Any]:
    flat: list[Any] = []
    for item in fields or ():
        flat += _flat(item) if isinstance(item, (list, tuple)) else [item]
    return flat


def _masked_names(fields: Any, hides: Callable[[Any], bool], seen: set[Any]) -> list[Any]:
    """``fields`` with each content field's stand-in in its place, leaving out what ``seen`` already holds."""
    masked: list[Any] = []
    for item in fields:
        if isinstance(item, (list, tuple)):
            masked.append(tuple(_masked_names(item, hides, seen)))
            continue
        name = HIDDEN + item if hides(item) else item
        if name not in seen:
            seen.add(name)
            masked.append(name)
    return masked


class WrittenByTheProduct(admin.ModelAdmin):
    """Rows only the product writes: staff look, nobody adds, edits or deletes one in admin."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
