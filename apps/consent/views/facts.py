"""Personal info: the person's own facts (SPEC W-2)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _

from apps.consent.forms import FactAddForm, FactEditForm, FactFilterForm, SensitiveForm
from apps.consent.selectors import fact_lists, pages
from apps.consent.views import submissions
from apps.consent.views.mixins import MeAction, MePage
from apps.memory.models import FactStatus
from apps.memory.services import (
    FactArchived,
    FactVersionConflict,
    fact_archive,
    fact_create,
    fact_restore,
    fact_update,
)

TEMPLATE = "me/facts.html"


def _to_fact(fact) -> str:
    """The fact in place: the unfiltered list's page that holds it (SPEC W-6)."""
    number = fact_lists.page_holding(fact_lists.active_facts(fact.owner_id), fact, fact_lists.FACTS_PER_PAGE)
    return reverse("consent:facts") + (f"?page={number}" if number > 1 else "") + f"#fact-{fact.pk}"


class FactsPageMixin(MePage):
    nav = "facts"

    def render_facts(self, *, add_form=None, edit_for=None, edit_form=None, conflict=None, archived=None,
                     status=200):
        """The page, with a failed form (and its errors) in place of the blank one.

        ``archived``: a fact archived before the person's edit of it arrived; their wording fills the add form.
        """
        query = self.request.GET
        filter_form = FactFilterForm(query, states={**FactFilterForm.STATES, "archived": _("Archived")})
        page = pages.facts_page(user=self.request.user, filters=filter_form.values(), number=query.get("page"))
        if edit_for and not any(row.fact.pk == edit_for for row in page.rows):  # a refused edit shows its fact
            fact = pages.fact_for(user=self.request.user, fact_id=edit_for)
            number = fact_lists.page_holding(fact_lists.active_facts(fact.owner_id), fact, fact_lists.FACTS_PER_PAGE)
            page = pages.facts_page(user=self.request.user, filters={}, number=number)
        for row in page.rows:
            row.form = edit_form if row.fact.pk == edit_for else FactEditForm.for_fact(row.fact)
        initial = {"submission": submissions.new()}
        if archived is not None and edit_form is not None:
            initial.update({name: edit_form.data.get(name, "") for name in FactEditForm.declared_fields
                            if name != "version"})
        add_form = add_form or FactAddForm(auto_id="add-%s", initial=initial)
        context = {"page": page, "add_form": add_form, "filter_form": filter_form,
                   "edit_for": edit_for, "conflict": conflict, "archived_edit": archived}
        anchor = f"#fact-{edit_for}" if edit_for else "#add" if add_form.is_bound or archived else ""
        return self.render_page(TEMPLATE, context, status=status, page_path=reverse("consent:facts") + anchor)


# SPEC W-2 (home)
class FactsView(FactsPageMixin):
    def get(self, request):
        return self.render_facts()


class FactAddView(FactsPageMixin, MeAction):
    def post(self, request):
        form = FactAddForm(request.POST, auto_id="add-%s")
        if form.is_valid():
            submission = form.cleaned_data["submission"]
            first, led_to = submissions.claim(request, submission)
            if not first:  # the same form, sent again: it was acted on once
                return redirect(led_to or reverse("consent:facts"))
            try:
                fact = fact_create(owner=request.user, **form.service_kwargs())
            except BaseException as error:  # not done: sending the form again must do it
                submissions.settle(request, submission, led_to=None)
                if not isinstance(error, ValidationError):
                    raise
                form.add_error(None, error)
            else:
                submissions.settle(request, submission, led_to=_to_fact(fact))
                messages.success(request, _("Added “%(label)s”.") % {"label": fact.label})
                return redirect(_to_fact(fact))
        return self.render_facts(add_form=form, status=400)


class FactEditView(FactsPageMixin, MeAction):
    def post(self, request, pk):
        fact = pages.fact_for(user=request.user, fact_id=pk)
        form = FactEditForm(request.POST, auto_id=f"fact{fact.pk}-%s")
        if not form.is_valid():
            return self.render_facts(edit_for=fact.pk, edit_form=form, status=400)
        try:
            updated = fact_update(fact=fact, expected_version=form.cleaned_data["version"], active_only=True,
                                  **form.changes())
        except FactArchived:  # archived in another tab meanwhile: it stays as it was
            return self.render_facts(edit_form=form, archived=fact, status=409)
        except FactVersionConflict as conflict:
            # SPEC C-2: never overwrite a newer version unseen. Keep the person's
            # wording, show the latest, and let them save it over the new version.
            data = request.POST.copy()
            data["version"] = str(conflict.fact.version)
            retry = FactEditForm(data, auto_id=f"fact{fact.pk}-%s")
            retry.is_valid()
            return self.render_facts(edit_for=fact.pk, edit_form=retry, conflict=conflict.fact, status=409)
        except ValidationError as error:
            form.add_error(None, error)
            return self.render_facts(edit_for=fact.pk, edit_form=form, status=400)
        if updated.version != form.cleaned_data["version"] and updated.shares.exists():
            messages.warning(request, _(
                "Saved as version %(version)s. The assistants you shared it with no longer see it "
                "until you confirm it again on their pages."
            ) % {"version": updated.version})
        else:
            messages.success(request, _("Saved “%(label)s”.") % {"label": updated.label})
        return redirect(_to_fact(updated))


class FactArchiveView(MeAction):
    def post(self, request, pk):
        fact = pages.fact_for(user=request.user, fact_id=pk)
        back = _to_fact(fact).partition("#")[0]  # the page it was on
        fact = fact_archive(fact=fact)
        messages.success(request, _("Archived “%(label)s”. No assistant sees it any more.") % {"label": fact.label})
        return redirect(back)


class FactRestoreView(MeAction):
    """An archived fact back in the list, as a new version: its sharing is confirmed again (SPEC W-2, C-2)."""

    def post(self, request, pk):
        fact = pages.fact_for(user=request.user, fact_id=pk)
        was_archived = fact.status == FactStatus.ARCHIVED
        fact = fact_restore(fact=fact)
        if was_archived:
            messages.success(request, _(
                "Restored “%(label)s” as version %(version)s. No assistant sees it until you share it again "
                "on the assistant's page."
            ) % {"label": fact.label, "version": fact.version})
        return redirect(_to_fact(fact))


class FactSensitiveView(FactsPageMixin, MeAction):
    def post(self, request, pk):
        fact = pages.fact_for(user=request.user, fact_id=pk)
        form = SensitiveForm(request.POST)
        if not form.is_valid():
            return self.render_facts(status=400)
        fact = fact_update(fact=fact, sensitive=form.cleaned_data["sensitive"])
        if fact.sensitive:
            notice = _("“%(label)s” is marked sensitive: no assistant sees it.") % {"label": fact.label}
            messages.success(request, notice)
        else:
            messages.success(request, _("“%(label)s” is no longer marked sensitive.") % {"label": fact.label})
        return redirect(_to_fact(fact))
