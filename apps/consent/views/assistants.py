"""Connected assistants: the list, one connection's page, and its narrowing actions (SPEC W-3)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.consent.context_processors import waiting_for
from apps.consent.forms import FactFilterForm, NarrowForm, ProposalEditForm, ShareForm
from apps.consent.selectors import fact_lists, pages
from apps.consent.selectors.visibility import connection_categories, visible_facts
from apps.consent.services import ConsentError, connection_narrow, connection_revoke, shares_apply, shares_set
from apps.consent.templatetags.me_pages import assistant_name
from apps.consent.views import share_draft
from apps.consent.views.mixins import MeAction, MePage, consent_error_message

TEMPLATE = "me/assistant.html"


def _section(connection, anchor: str, **params) -> str:
    query = urlencode({name: value for name, value in params.items() if value and value not in (1, "1")})
    return reverse("consent:assistant", args=[connection.pk]) + (f"?{query}" if query else "") + f"#{anchor}"


# SPEC W-3 (home)
class AssistantsView(MePage):
    nav = "assistants"

    def get(self, request):
        waiting = waiting_for(request).by_connection  # read once, for the header too (SPEC W-7)
        return self.render_page("me/assistants.html", pages.assistants_page(user=request.user, waiting=waiting))


class ConnectionPageMixin(MePage):
    nav = "assistants"

    def render_connection(self, pk, *, error=None, proposal_form=None, ticked=None, query=None, status=200):
        """The connection's page; after a refused action, with the reason and the failed form.

        ``ticked``: fact ids to show ticked instead of what is shared; ``query``: filter and page numbers.
        """
        draft = share_draft.load(self.request, pk)
        if ticked is not None:
            draft = {}
        page = pages.connection_page(user=self.request.user, connection_id=pk,
                                     query=self.request.GET if query is None else query, draft=draft)
        for row in page.get("share_page", []) if ticked is not None else []:
            row.ticked = row.fact.pk in ticked
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
    """Share the ticked facts, each as it is now (SPEC D-4, C-2); page, filter and select without JavaScript (W-6)."""

    def post(self, request, pk):
        connection = pages.connection_for(user=request.user, connection_id=pk)
        form = ShareForm(request.POST)
        if not form.is_valid():
            return self.render_connection(pk, error=_("The sharing form was not understood. Nothing was changed."),
                                          status=400)
        ticked, seen = form.cleaned_data["share"], form.seen_versions()
        if seen is None:  # a script posting ``share`` alone: exactly these (SPEC I-5)
            return self.share_exactly(connection, ticked)
        filters = FactFilterForm(request.POST, categories=connection_categories(connection)).values()
        draft = share_draft.with_page(share_draft.load(request, pk), ticked=ticked, seen=seen)
        action = form.cleaned_data["action"] or ("go" if form.cleaned_data["go"] else "save")
        if action == "discard":
            share_draft.clear(request, pk)
            return redirect(_section(connection, "sharing", **filters))
        if action in ("all", "none"):  # every fact the filter selects, not only the page shown
            chosen = fact_lists.sharing_choices(connection, filters).values_list("id", "version")
            draft.update({fid: (action == "all", version) for fid, version in chosen})
        if action != "save":
            share_draft.store(request, pk, draft)
            number = 1 if action == "filter" else form.cleaned_data["go"] or request.POST.get("page")
            return redirect(_section(connection, "sharing", **filters, page=number))
        wanted, unwanted = share_draft.split(draft)
        try:
            shares_apply(connection=connection, ticked=wanted, unticked=unwanted)
        except ConsentError as error:
            # The person's choice is kept, minus the facts the refusal is about (unseen or unshareable).
            share_draft.store(request, pk, {fid: pick for fid, pick in draft.items() if fid not in error.fact_ids})
            return self.render_connection(pk, error=consent_error_message(error),
                                          status=409 if error.code == "changed" else 400,
                                          query={**filters, "page": request.POST.get("page")})
        share_draft.clear(request, pk)
        return self.saved(connection, visible_facts(connection=connection).count(),
                          _section(connection, "sharing", **filters, page=request.POST.get("page")))

    def share_exactly(self, connection, ticked: set[int]):
        try:
            shared = shares_set(connection=connection, fact_ids=ticked)
        except ConsentError as error:
            return self.render_connection(connection.pk, error=consent_error_message(error), status=400,
                                          ticked=ticked - set(error.fact_ids))
        return self.saved(connection, len(shared), _section(connection, "sharing"))

    def saved(self, connection, count: int, to: str):
        messages.success(self.request, ngettext(
            "Saved: %(count)d fact is shared with %(name)s.",
            "Saved: %(count)d facts are shared with %(name)s.",
            count,
        ) % {"count": count, "name": assistant_name(connection.application)})
        return redirect(to)


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
