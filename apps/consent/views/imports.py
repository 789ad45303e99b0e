"""Bringing memories in (SPEC P-10): the import page, where the imported suggestions wait too."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.csrf import csrf_exempt, csrf_protect

from apps.consent.forms import ImportForm, ProposalEditForm
from apps.consent.memory_lists import IMPORT_MAX_BYTES, ImportRefused
from apps.consent.selectors import pages
from apps.consent.services.imports import memories_import
from apps.consent.views.mixins import MePage

TEMPLATE = "me/import.html"
# A request past this is refused before it is read: the paste field alone would overflow Django's limit.
REQUEST_MAX_BYTES = 2 * IMPORT_MAX_BYTES

# The import's refusal codes in the person's words (SPEC P-10: a clear message, nothing half-imported).
REFUSALS = {
    "import_empty": gettext_lazy("There was nothing to import: paste the list, or choose a file."),
    "import_too_large": gettext_lazy("That is too large to import (at most 1 MB at once). Import it in parts."),
    "import_not_text": gettext_lazy("That file is not text (it looks like a picture, a document or an archive). "
                                    "Export the memories as text, Markdown or JSON."),
    "import_html": gettext_lazy("That is the source of a web page (HTML). Copy the list as you see it and "
                                "paste that instead."),
    "import_bad_json": gettext_lazy("That JSON could not be read as a list of memories."),
    "import_no_items": gettext_lazy("No memories were found in it. Paste the list, one memory per line or item."),
    "import_too_many": gettext_lazy("That is more than 1,000 memories at once. Import it in parts."),
    "import_both": gettext_lazy("Paste a list or choose a file, not both."),
    "import_busy": gettext_lazy("The same memories were being imported at the same moment. Look at the list "
                                "below, then import again if something is missing."),
}
NOTHING_CHANGED = gettext_lazy("Nothing was imported.")


class ImportPageMixin(MePage):
    def render_import(self, *, error=None, status=200, proposal_form=None, form=None):
        """The import page; after a refused action, with the reason and the failed suggestion's form."""
        self.nav = "facts"
        query = self.request.GET
        page = pages.proposal_pages(connection=None, owner=self.request.user, shared={},
                                    waiting=query.get("suggestions"), earlier=query.get("earlier"))
        failed_pk, failed_form = proposal_form or (None, None)
        for item in page["open_proposals"]:
            if item.state == "pending":
                item.form = failed_form if item.proposal.pk == failed_pk else ProposalEditForm.for_proposal(
                    item.proposal)
        page.update(error=error, failed_proposal=failed_pk, import_form=form or ImportForm(),
                    imported=True, name=_("the import"), max_bytes=IMPORT_MAX_BYTES)
        return self.render_page(TEMPLATE, page, status=status, page_path=reverse("consent:import"))


class ImportView(ImportPageMixin):
    """GET: the form and the imported suggestions; POST: import a paste or a file."""

    @method_decorator(csrf_exempt)  # checked below, once the size is known to be readable
    def dispatch(self, request, *args, **kwargs):
        return super().dispatch(request, *args, **kwargs)

    def get(self, request):
        return self.render_import()

    def post(self, request):
        try:
            size = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            size = 0
        if size > REQUEST_MAX_BYTES:
            return self.render_import(error=f"{REFUSALS['import_too_large']} {NOTHING_CHANGED}", status=413)
        return csrf_protect(self.imported)(request)

    def imported(self, request):
        form = ImportForm(request.POST, request.FILES)
        if not form.is_valid():
            return self.render_import(error=f"{REFUSALS[form.code()]} {NOTHING_CHANGED}", status=400, form=form)
        try:
            result = memories_import(user=request.user, data=form.cleaned_data["data"])
        except ImportRefused as error:
            return self.render_import(error=f"{REFUSALS.get(error.code, error.message)} {NOTHING_CHANGED}",
                                      status=400, form=form)
        parts = [ngettext("%(count)d suggestion is waiting for you below.",
                          "%(count)d suggestions are waiting for you below.", result.added) % {"count": result.added}]
        if result.changes:
            parts.append(ngettext("%(count)d of them changes one of your facts.",
                                  "%(count)d of them change one of your facts.", result.changes)
                         % {"count": result.changes})
        if result.known:
            parts.append(ngettext("%(count)d says what a fact already says.",
                                  "%(count)d say what your facts already say.", result.known) % {"count": result.known})
        if result.duplicates:
            parts.append(ngettext("%(count)d repeated item was left out.", "%(count)d repeated items were left out.",
                                  result.duplicates) % {"count": result.duplicates})
        if result.already:
            parts.append(ngettext("%(count)d was imported before.", "%(count)d were imported before.",
                                  result.already) % {"count": result.already})
        if result.split:
            parts.append(ngettext("%(count)d long item was split into sentences.",
                                  "%(count)d long items were split into sentences.", result.split)
                         % {"count": result.split})
        messages.success(request, " ".join(parts) + " " + _("Nothing is saved until you confirm it."))
        for refused in result.refused:
            messages.warning(request, _("Item %(number)d was not imported: %(reason)s") % {
                "number": refused.number, "reason": REFUSED_ITEM.get(refused.code, refused.message)})
        return redirect(reverse("consent:import") + "#proposals")


# Why one item was left out, in the person's words (the item's text is not repeated: it may hold a secret).
REFUSED_ITEM = {
    "secret_detected": gettext_lazy("it looks like a password, key or verification code, which is never stored."),
    "conversation_refused": gettext_lazy("it looks like a conversation, not one fact."),
    "invalid_argument": gettext_lazy("it is longer than 300 characters in one sentence; shorten it and import it "
                                     "again."),
}
