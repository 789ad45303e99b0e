"""Forms of the /me/ pages. They check shape only; the services decide meaning."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from apps.common.i18n import once_per_catalog
from apps.consent import scopes as scope_rules
from apps.consent.memory_lists import IMPORT_MAX_BYTES
from apps.memory.models import Category, Certainty
from apps.memory.models.facts import EVIDENCE_MAX, LABEL_MAX, VALUE_MAX

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

    from apps.consent.models import Connection


@once_per_catalog
def category_choices() -> tuple[tuple[str, str], ...]:
    """The categories with their names in the active language, translated once per language (SPEC W-6)."""
    return tuple((code, str(label)) for code, label in Category.choices)


@once_per_catalog
def certainty_choices() -> tuple[tuple[str, str], ...]:
    return tuple((code, str(label)) for code, label in Certainty.choices)


def _one_line(text: str) -> str:
    if "\n" in text or "\r" in text:
        raise ValidationError(_("Keep this to a single line."), code="multi_line")
    return text


class FactFields(forms.Form):
    """The content of a fact, as the person types it (SPEC D-1)."""

    category = forms.ChoiceField(label=_("Category"), choices=category_choices)
    label = forms.CharField(label=_("Label"), max_length=LABEL_MAX)
    value = forms.CharField(label=_("Value"), max_length=VALUE_MAX,
                            widget=forms.Textarea(attrs={"rows": 2}))
    evidence = forms.CharField(label=_("Note to yourself (never shown to assistants)"),
                               max_length=EVIDENCE_MAX, required=False)
    certainty = forms.ChoiceField(label=_("Certainty"), choices=certainty_choices, initial=Certainty.CONFIRMED)

    def clean_evidence(self):
        return _one_line(self.cleaned_data["evidence"])

    def clean_label(self):
        return _one_line(self.cleaned_data["label"])


class FactAddForm(FactFields):
    sensitive = forms.BooleanField(label=_("Sensitive: never share it with any assistant"), required=False)
    # One value per rendered form, so the same form sent twice adds one fact (``views.submissions``).
    submission = forms.CharField(required=False, max_length=32, widget=forms.HiddenInput)

    def clean_submission(self) -> str:
        value = self.cleaned_data["submission"]
        return value if re.fullmatch(r"[0-9a-f]{32}", value) else ""

    def service_kwargs(self) -> dict:
        data = {name: value for name, value in self.cleaned_data.items() if name != "submission"}
        # Unticked means "let the detector decide"; it can only turn the flag on.
        data["sensitive"] = True if data["sensitive"] else None
        return data


class FactEditForm(FactFields):
    """An edit names the version it was made from, so a stale edit is refused (SPEC C-2)."""

    version = forms.IntegerField(min_value=1, widget=forms.HiddenInput)

    @classmethod
    def for_fact(cls, fact, **kwargs):
        initial = {name: getattr(fact, name) for name in ("category", "label", "value", "evidence", "certainty")}
        return cls(initial={**initial, "version": fact.version}, auto_id=f"fact{fact.pk}-%s", **kwargs)

    def changes(self) -> dict:
        return {name: self.cleaned_data[name] for name in ("category", "label", "value", "evidence", "certainty")}


class SensitiveForm(forms.Form):
    """An explicit value, not a toggle: sending it twice does the same thing."""

    sensitive = forms.TypedChoiceField(choices=[("1", "1"), ("0", "0")], coerce=lambda v: v == "1")


class IdListField(forms.MultipleChoiceField):
    """A list of positive integer ids; whether they may be used is for the service to say."""

    def validate(self, value):
        if self.required and not value:
            raise ValidationError(self.error_messages["required"], code="required")

    def to_python(self, value):
        ids = set()
        for item in super().to_python(value):
            if not (item.isascii() and item.isdigit()) or not 0 < int(item) < 2**63:  # "²" and "١" are digits too
                raise ValidationError(_("Not a valid choice."), code="invalid_choice")
            ids.add(int(item))
        return ids


class SeenVersionsField(forms.MultipleChoiceField):
    """``<fact id>:<version>`` pairs: what the page showed. A mapping fact id → version."""

    def validate(self, value):
        pass

    def to_python(self, value):
        seen = {}
        for item in super().to_python(value):
            fact_id, colon, version = item.partition(":")
            if not colon or not all(part.isascii() and part.isdigit() and 0 < int(part) < 2**63
                                    for part in (fact_id, version)):
                raise ValidationError(_("Not a valid choice."), code="invalid_choice")
            seen[int(fact_id)] = int(version)
        return seen


class FactFilterForm(forms.Form):
    """What a list of facts shows: one category, words in the label or value, a sharing state (SPEC W-6).

    Anything it does not understand shows the whole list: it only narrows, and links get old or mistyped.
    """

    STATES = {"shared": _("Shared"), "not_shared": _("Not shared"), "changed": _("Changed since shared")}

    category = forms.ChoiceField(label=_("Category"), required=False)
    q = forms.CharField(label=_("Words"), max_length=100, required=False)
    state = forms.ChoiceField(label=_("Sharing"), required=False)

    def __init__(
        self, *args: Any, categories: Iterable[str] | None = None, states: Mapping[str, StrOrPromise] = STATES,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        codes = Category.values if categories is None else categories
        cast(forms.ChoiceField, self.fields["category"]).choices = [
            ("", _("All categories")), *((c, Category(c).label) for c in codes)
        ]
        cast(forms.ChoiceField, self.fields["state"]).choices = [("", _("Shared or not")), *states.items()]

    def values(self) -> dict[str, str]:
        """The filter as given, each invalid part left out."""
        self.is_valid()
        cleaned = getattr(self, "cleaned_data", {})
        return {name: cleaned.get(name, "").strip() for name in self.fields if name not in self.errors}


class ShareForm(forms.Form):
    """Share the ticked facts, each at the version the page showed (SPEC D-4, C-2).

    ``seen`` holds the versions shown; a form without it shares exactly what it sends. ``action``: the button.
    """

    ACTIONS = ("save", "filter", "all", "none", "discard")

    share = IdListField(required=False)
    seen = SeenVersionsField(required=False)
    action = forms.ChoiceField(choices=[(a, a) for a in ACTIONS], required=False)
    go = forms.IntegerField(min_value=1, required=False)  # a page of the list to show next

    def seen_versions(self) -> dict[int, int] | None:
        return self.cleaned_data["seen"] if "seen" in self.data else None


class BulkIgnoreForm(forms.Form):
    """Ignore the ticked suggestions, or (``action=all``) every one waiting up to the newest shown (SPEC P-8)."""

    proposals = IdListField(required=False)
    up_to = forms.IntegerField(min_value=1, required=False)
    action = forms.ChoiceField(choices=[("selected", "selected"), ("all", "all")])


class NarrowForm(forms.Form):
    """Ticked = keep. Only the connection's current scopes and categories are choices (SPEC C-5)."""

    scopes = forms.MultipleChoiceField(required=False)
    categories = forms.MultipleChoiceField(required=False)

    def __init__(self, *args: Any, connection: Connection, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.MultipleChoiceField, self.fields["scopes"]).choices = [
            (name, scope_rules.DESCRIPTIONS.get(name, name)) for name in connection.scopes
        ]
        cast(forms.MultipleChoiceField, self.fields["categories"]).choices = [
            (code, Category(code).label) for code in connection.categories if code in Category.values
        ]


class ProposalConfirmForm(forms.Form):
    """Confirm a proposal; ``share`` accepts the offer to share the result with the assistant (SPEC P-6)."""

    share = forms.BooleanField(required=False)
    # SPEC P-9: for an ``add`` that changes a fact, replace it (the default) or keep both.
    resolution = forms.ChoiceField(choices=[("replace", "replace"), ("keep", "keep")], required=False)


class ProposalEditForm(ProposalConfirmForm):
    """The person's wording of a proposal; blank keeps the assistant's (or, for an update, the fact's)."""

    category = forms.ChoiceField(label=_("Category"), choices=lambda: [("", "—"), *category_choices()], required=False)
    label = forms.CharField(label=_("Label"), max_length=LABEL_MAX, required=False)
    value = forms.CharField(label=_("Value"), max_length=VALUE_MAX, required=False,
                            widget=forms.Textarea(attrs={"rows": 2}))
    evidence = forms.CharField(label=_("Note to yourself (never shown to assistants)"),
                               max_length=EVIDENCE_MAX, required=False)
    field_order = ["category", "label", "value", "evidence", "share"]
    resolution = None  # type: ignore[assignment]  # Django's way to drop a field: the edit confirms by default

    @classmethod
    def for_proposal(cls, proposal, *, initial_share: bool = False, **kwargs):
        """Prefilled with the assistant's wording. Sharing is offered, ticked only to keep an existing share."""
        initial = {name: getattr(proposal, name) for name in ("category", "label", "value", "evidence")}
        initial["share"] = initial_share and proposal.op == "update"
        return cls(initial=initial, auto_id=f"proposal{proposal.pk}-%s", **kwargs)

    def clean_label(self):
        return _one_line(self.cleaned_data["label"])

    def clean_evidence(self):
        return _one_line(self.cleaned_data["evidence"])

    def changes(self) -> dict:
        return {name: self.cleaned_data[name] for name in ("category", "label", "value", "evidence")}


class NoticeSettingsForm(forms.Form):
    """The e-mail a person wants about waiting suggestions (SPEC W-7); the service checks the combination."""

    email = forms.EmailField(label=_("E-mail address"), max_length=254, required=False)
    digest = forms.ChoiceField(label=_("Digest of waiting suggestions"), choices=[
        ("off", _("Off")), ("daily", _("Daily")), ("weekly", _("Weekly"))])
    expiry_notice = forms.BooleanField(label=_("Tell me three days before suggestions expire"), required=False)

    @classmethod
    def for_settings(cls, chosen, email: str) -> NoticeSettingsForm:
        return cls(initial={"email": email, "digest": chosen.digest, "expiry_notice": chosen.expiry_notice},
                   auto_id="notices-%s")


class ImportForm(forms.Form):
    """A pasted list (``text``) or an uploaded export (``file``), as bytes in ``data`` (SPEC P-10).

    Shape only: what the bytes hold is for the import service to judge. The paste is read as sent, NUL and all,
    so that it is refused with the import's own reason rather than a form error.
    """

    file = forms.FileField(label=_("Or upload an export (JSON, Markdown or text)"), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._code = "import_empty"

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        text = self.data.get("text", "") if self.is_bound else ""
        upload = cleaned.get("file")
        if upload and text.strip():
            self._code = "import_both"
            raise ValidationError("both", code="import_both")
        cleaned["data"] = upload.read(IMPORT_MAX_BYTES + 1) if upload else text.encode("utf-8", "surrogatepass")
        return cleaned

    def code(self) -> str:
        return self._code
