"""Connected assistants: the list, one connection's page, and its narrowing actions (SPEC W-3)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.consent.forms import NarrowForm, ProposalEditForm, ShareForm
from apps.consent.services import ConsentError, connection_narrow, connection_revoke, shares_set
from apps.consent.templatetags.me_pages import assistant_name
from apps.consent.views import pages
from apps.consent.views.mixins import MeAction, MePage, consent_error_message

TEMPLATE = "me/assistant.html"


def _section(connection, anchor: str) -> str:
    return reverse("consent:assistant", args=[connection.pk]) + f"#{anchor}"


class AssistantsView(MePage):
    nav = "assistants"

    def get(self, request):
        return self.render_page("me/assistants.html", pages.assistants_page(user=request.user))


class ConnectionPageMixin(MePage):
    nav = "assistants"

    def render_connection(self, pk, *, error=None, proposal_form=None, ticked=None, status=200):
        """The connection's page; after a refused action, with the reason on top and the failed form in place.

        ``ticked``: the fact ids to show ticked in the sharing form instead of what is shared now.
        """
        page = pages.connection_page(user=self.request.user, connection_id=pk)
        failed_pk, failed_form = proposal_form or (None, None)
        for item in page.get("open_proposals", []):
            if item.state == "pending":
                item.form = failed_form if item.proposal.pk == failed_pk else ProposalEditForm.for_proposal(
                    item.proposal, initial_share=item.target_shared)
        page.update(error=error, failed_proposal=failed_pk, ticked=ticked)
        return self.render_page(TEMPLATE, page, status=status, page_path=reverse("consent:assistant", args=[pk]))


class AssistantView(ConnectionPageMixin):
    def get(self, request, pk):
        return self.render_connection(pk)


class SharesView(ConnectionPageMixin, MeAction):
    """Share exactly the ticked facts, each as it is now (SPEC D-4, C-2)."""

    def post(self, request, pk):
        connection = pages.connection_for(user=request.user, connection_id=pk)
        form = ShareForm(request.POST)
        if not form.is_valid():
            return self.render_connection(pk, error=_("The sharing form was not understood. Nothing was changed."),
                                          status=400)
        try:
            shared = shares_set(connection=connection, fact_ids=form.cleaned_data["share"],
                                seen=form.seen_versions())
        except ConsentError as error:
            # The person's choice is kept, minus the facts the refusal is about (unseen or unshareable).
            return self.render_connection(pk, error=consent_error_message(error),
                                          status=409 if error.code == "changed" else 400,
                                          ticked=form.cleaned_data["share"] - set(error.fact_ids))
        messages.success(request, ngettext(
            "Saved: %(count)d fact is shared with %(name)s.",
            "Saved: %(count)d facts are shared with %(name)s.",
            len(shared),
        ) % {"count": len(shared), "name": assistant_name(connection.application)})
        return redirect(_section(connection, "sharing"))


class NarrowView(ConnectionPageMixin, MeAction):
    """Remove scopes or categories; never add them (SPEC C-5)."""

    def post(self, request, pk):
        connection = pages.connection_for(user=request.user, connection_id=pk)
        form = NarrowForm(request.POST, connection=connection)
        if not form.is_valid():
            return self.render_connection(
                pk, error=_("Access can only be removed here. To give more, the assistant has to ask again."),
                status=400,
            )
        try:
            connection_narrow(connection=connection, scopes=set(form.cleaned_data["scopes"]),
                              categories=set(form.cleaned_data["categories"]))
        except ConsentError as error:
            return self.render_connection(pk, error=consent_error_message(error), status=400)
        messages.success(request, _("Saved. %(name)s has only what is ticked now, from its next request on.")
                         % {"name": assistant_name(connection.application)})
        return redirect(_section(connection, "access"))


class RevokeView(MeAction):
    """Stop all access at once (SPEC C-7)."""

    def post(self, request, pk):
        connection = connection_revoke(connection=pages.connection_for(user=request.user, connection_id=pk))
        messages.success(request, _(
            "%(name)s can no longer reach your memory. What it was already sent cannot be recalled."
        ) % {"name": assistant_name(connection.application)})
        return redirect("consent:assistants")
