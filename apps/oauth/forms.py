"""The consent form: which of the offered scopes and categories the person allows (SPEC A-7, A-9, C-4, I-4)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.consent import scopes as scope_rules
from apps.memory.models import Category

if TYPE_CHECKING:
    from apps.oauth.offers import Offer

# Offered only when asked for, and never ticked in advance (SPEC ): context:search and every
# memory:<type>:read scope.
UNTICKED_BY_DEFAULT = scope_rules.UNTICKED_BY_DEFAULT


# SPEC I-4 (home)
class ConsentForm(forms.Form):
    """Checkboxes ``scopes`` and ``categories``; anything beyond what the page offered is refused."""

    offer = forms.CharField(widget=forms.HiddenInput)
    scopes = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple)
    categories = forms.MultipleChoiceField(
        required=False, widget=forms.CheckboxSelectMultiple, choices=Category.choices
    )

    def __init__(self, *args: Any, offer: Any, **kwargs: Any) -> None:  # an Offer, kept beside the field of its name
        self.offer = offer
        super().__init__(*args, **kwargs)
        descriptions = scope_rules.DESCRIPTIONS
        cast(forms.MultipleChoiceField, self.fields["scopes"]).choices = [
            (name, descriptions[name]) for name in offer.scopes
        ]
        self.fields["scopes"].error_messages["invalid_choice"] = _(
            "“%(value)s” was not requested by this assistant and cannot be granted."
        )
        self.fields["categories"].error_messages["invalid_choice"] = _("“%(value)s” is not a category.")
        if not self.is_bound:
            self.initial.setdefault("scopes", self.default_scopes(offer))
            self.initial.setdefault("categories", list(Category.shareable()))

    @staticmethod
    def default_scopes(offer: Offer) -> list[str]:
        return [name for name in offer.scopes if name not in UNTICKED_BY_DEFAULT]

    def clean_categories(self) -> list[str]:
        chosen = self.cleaned_data["categories"]
        closed = [code for code in chosen if not Category.is_shareable(code)]
        if closed:
            labels = ", ".join(str(Category(code).label) for code in closed)
            raise forms.ValidationError(
                _("These categories cannot be shared with assistants: %(labels)s."), params={"labels": labels}
            )
        return [code for code in Category.values if code in chosen]

    def clean_scopes(self) -> list[str]:
        chosen = self.cleaned_data["scopes"]
        if not chosen:
            raise forms.ValidationError(_("Choose at least one permission, or deny access."))
        if scope_rules.CONTEXT_SEARCH in chosen and scope_rules.PROFILE_READ not in chosen:
            raise forms.ValidationError(
                _("Searching your facts needs permission to read them: tick both, or neither.")
            )
        return scope_rules.ordered(chosen)
