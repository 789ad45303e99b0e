"""Suggestions from an assistant: edit, confirm, ignore (SPEC P-5, P-6, P-7)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from apps.common.text import without_direction_controls
from apps.consent.forms import BulkIgnoreForm, ProposalConfirmForm, ProposalEditForm
from apps.consent.models import Proposal
from apps.consent.selectors import pages
from apps.consent.selectors.visibility import visible_facts
from apps.consent.services import (
    ProposalError,
    proposal_confirm,
    proposal_edit,
    proposal_ignore,
    proposals_confirm,
    proposals_ignore,
)
from apps.consent.services.proposals import REPLACE
from apps.consent.templatetags.me_pages import assistant_name
from apps.consent.views.assistants import ConnectionPageMixin
from apps.consent.views.imports import ImportPageMixin
from apps.consent.views.mixins import MeAction

# The services' ProposalError codes in the person's words; (message, HTTP status).
ERRORS = {
    "proposal_expired": (gettext_lazy("This suggestion expired (suggestions last 30 days) and can no longer be "
                                      "confirmed. Nothing was changed."), 409),
    "not_pending": (gettext_lazy("This suggestion was already handled. Nothing was changed."), 409),
    "secret_detected": (gettext_lazy("That looks like a password, key or verification code, which is never "
                                     "stored. Nothing was changed."), 400),
    "conversation_refused": (gettext_lazy("That looks like a pasted conversation. Keep a memory to one short "
                                          "fact. Nothing was changed."), 400),
    "slot_changed": (gettext_lazy("Your facts changed since this suggestion was shown, so it means something else "
                                  "now: look at it again below. Nothing was changed."), 409),
}
DEFAULT_ERROR = (gettext_lazy("This wording cannot be saved (empty, too long or over several lines). "
                              "Nothing was changed."), 400)


def _anchor(proposal) -> str:
    """Where the suggestion is listed: its assistant's page, or the imported suggestions (SPEC P-10)."""
    if proposal.connection_id is None:
        return reverse("consent:import") + f"#proposal-{proposal.pk}"
    return reverse("consent:assistant", args=[proposal.connection_id]) + f"#proposal-{proposal.pk}"


class ProposalAction(ConnectionPageMixin, ImportPageMixin, MeAction):
    def refuse(self, proposal, error: ProposalError | None = None, form=None):
        message, status = ERRORS.get(getattr(error, "code", ""), DEFAULT_ERROR)
        failed = (proposal.pk, form) if form is not None else None
        if proposal.connection_id is None:
            return self.render_import(error=message, status=status, proposal_form=failed)
        return self.render_connection(proposal.connection_id, error=message, status=status, proposal_form=failed)

    def decided_before(self, proposal, error: ProposalError, statuses: tuple[str, ...], wording=None):
        """The proposal, if ``error`` says it was already decided as this action decides it (else None).

        A double submission is then answered as the first was. ``wording``: the edit's fields, which must match.
        """
        if error.code != "not_pending":
            return None
        decided = pages.proposal_for(user=self.request.user, proposal_id=proposal.pk)
        if decided.status not in statuses:
            return None
        if wording and any(getattr(decided, name) != text.strip() for name, text in wording.items()):
            return None
        return decided

    def confirmed(self, proposal, wanted_share: bool):
        """Say plainly what confirming did, including whether the assistant now sees the result."""
        name = assistant_name(proposal.connection.application) if proposal.connection_id else _("the import")
        fact = proposal.result_fact
        label = without_direction_controls(fact.label) if fact else ""  # words an assistant suggested
        same_fact = fact is not None and fact.pk == proposal.slot_fact_id
        if proposal.status == "conflict":
            messages.warning(self.request, _(
                "Not applied: the fact changed after %(name)s suggested this. Nothing was overwritten — "
                "both versions are shown below."
            ) % {"name": name})
        elif proposal.op == "archive":
            messages.success(self.request, _("Archived “%(label)s”.") % {"label": label})
        elif same_fact and proposal.slot == Proposal.Slot.KNOWN:  # SPEC P-9
            messages.success(self.request, _("Already known: “%(label)s” says this. Nothing was changed.")
                             % {"label": label})
        elif proposal.connection_id is None:
            text = (_("Replaced: “%(label)s” now says what the import said. It is not shared with any assistant "
                      "until you share it again.") if same_fact
                    else _("Saved “%(label)s”. It is not shared with any assistant yet."))
            messages.success(self.request, text % {"label": label})
        else:
            shared = visible_facts(connection=proposal.connection).filter(pk=fact.pk).exists()
            if same_fact and not shared:  # SPEC P-9, C-2: the old wording is withdrawn from every assistant
                text = _("Replaced: “%(label)s” now says what %(name)s suggested. No assistant sees it until you "
                         "share it again.")
            elif shared:
                text = _("Saved “%(label)s”. %(name)s sees this version.")
            elif wanted_share:
                text = _("Saved “%(label)s”. It could not be shared with %(name)s (it is sensitive, or in a "
                         "category %(name)s cannot see).")
            else:
                text = _("Saved “%(label)s”. It is not shared with %(name)s.")
            messages.success(self.request, text % {"label": label, "name": name})
        return redirect(_anchor(proposal))


class ProposalConfirmView(ProposalAction):
    def post(self, request, pk):
        proposal = pages.proposal_for(user=request.user, proposal_id=pk)
        form = ProposalConfirmForm(request.POST)
        form.is_valid()  # one optional checkbox: always valid
        try:
            result = proposal_confirm(proposal=proposal, user=request.user,
                                      share_with_connection=form.cleaned_data["share"],
                                      resolution=form.cleaned_data["resolution"] or REPLACE)
        except ProposalError as error:
            result = self.decided_before(proposal, error, (Proposal.Status.CONFIRMED, Proposal.Status.CONFLICT))
            if result is None:
                return self.refuse(proposal, error)
        return self.confirmed(result, form.cleaned_data["share"])


class ProposalEditView(ProposalAction):
    """Save the person's wording; with ``action=confirm``, confirm it right after."""

    def post(self, request, pk):
        proposal = pages.proposal_for(user=request.user, proposal_id=pk)
        form = ProposalEditForm(request.POST, auto_id=f"proposal{proposal.pk}-%s")
        if not form.is_valid():
            return self.refuse(proposal, form=form)
        try:
            edited = proposal_edit(proposal=proposal, user=request.user, **form.changes())
        except ProposalError as error:
            if request.POST.get("action") == "confirm":
                decided = self.decided_before(proposal, error, (Proposal.Status.CONFIRMED, Proposal.Status.CONFLICT),
                                              wording=form.changes())
                if decided is not None:
                    return self.confirmed(decided, form.cleaned_data["share"])
            if error.field in form.fields:
                form.add_error(error.field, ERRORS.get(error.code, DEFAULT_ERROR)[0])
            return self.refuse(proposal, error, form=form)
        if request.POST.get("action") != "confirm":
            messages.success(request, _("Saved your wording. The suggestion is still waiting for you."))
            return redirect(_anchor(edited))
        if edited.slot and (edited.slot, edited.slot_fact_id) != (proposal.slot, proposal.slot_fact_id):
            # SPEC P-9: the new wording changes or repeats a fact the page did not show: the person decides.
            messages.info(request, _("Saved your wording. It now concerns one of your facts — look at it below "
                                     "and choose. Nothing else was changed."))
            return redirect(_anchor(edited))
        try:
            result = proposal_confirm(proposal=edited, user=request.user,
                                      share_with_connection=form.cleaned_data["share"])
        except ProposalError as error:
            return self.refuse(proposal, error)
        return self.confirmed(result, form.cleaned_data["share"])


class ProposalIgnoreView(ProposalAction):
    def post(self, request, pk):
        proposal = pages.proposal_for(user=request.user, proposal_id=pk)
        try:
            proposal_ignore(proposal=proposal, user=request.user)
        except ProposalError as error:
            if self.decided_before(proposal, error, (Proposal.Status.IGNORED,)) is None:
                return self.refuse(proposal, error)
        messages.success(request, _("Ignored. Nothing was saved."))
        return redirect(_anchor(proposal))


class BulkAction(ConnectionPageMixin, ImportPageMixin, MeAction):
    """Decide many suggestions at once (SPEC P-8): an assistant's (``pk``) or the imported ones (no ``pk``)."""

    def inbox(self, pk):
        connection = pages.connection_for(user=self.request.user, connection_id=pk) if pk is not None else None
        to = (reverse("consent:assistant", args=[pk]) if pk is not None else reverse("consent:import")) + "#proposals"
        return connection, to

    def refused(self, pk, error):
        if pk is None:
            return self.render_import(status=400, error=error)
        return self.render_connection(pk, status=400, error=error)


class ProposalsIgnoreView(BulkAction):
    """Ignore the ticked suggestions, or all waiting."""

    def post(self, request, pk=None):
        connection, to = self.inbox(pk)
        form = BulkIgnoreForm(request.POST)
        if not form.is_valid() or (form.cleaned_data["action"] == "selected" and not form.cleaned_data["proposals"]):
            return self.refused(pk, _("Tick the suggestions to ignore first. Nothing was changed."))
        everything = form.cleaned_data["action"] == "all"
        count = proposals_ignore(connection=connection, user=request.user,
                                 ids=None if everything else form.cleaned_data["proposals"],
                                 up_to=form.cleaned_data["up_to"])
        messages.success(request, ngettext("Ignored %(count)d suggestion. Nothing was saved.",
                                           "Ignored %(count)d suggestions. Nothing was saved.", count)
                         % {"count": count})
        return redirect(to)


class ProposalsConfirmView(BulkAction):
    """Confirm the ticked suggestions, each as confirming it alone would (SPEC P-6, P-9)."""

    def post(self, request, pk=None):
        connection, to = self.inbox(pk)
        form = BulkIgnoreForm(request.POST)
        if not form.is_valid() or not form.cleaned_data["proposals"]:
            return self.refused(pk, _("Tick the suggestions to confirm first. Nothing was changed."))
        done = proposals_confirm(connection=connection, user=request.user, ids=form.cleaned_data["proposals"])
        parts = [ngettext("Confirmed %(count)d suggestion.", "Confirmed %(count)d suggestions.", done.confirmed)
                 % {"count": done.confirmed}]
        if done.known:
            parts.append(ngettext("%(count)d was already known: nothing changed.",
                                  "%(count)d were already known: nothing changed.", done.known) % {"count": done.known})
        if done.conflicts:
            parts.append(ngettext("%(count)d was not applied: its fact changed meanwhile.",
                                  "%(count)d were not applied: their facts changed meanwhile.", done.conflicts)
                         % {"count": done.conflicts})
        if done.left:
            parts.append(ngettext("%(count)d now means something else and waits for you below.",
                                  "%(count)d now mean something else and wait for you below.", done.left)
                         % {"count": done.left})
        messages.success(request, " ".join(parts))
        return redirect(to)
