"""The person's pages (SPEC I-5) and their POST actions (SPEC W-5)."""

from django.urls import path

from apps.consent.views import assistants, export, facts, imports, notices, proposals, staff_access

app_name = "consent"

# SPEC I-5 (home)
urlpatterns = [
    path("me/facts/", facts.FactsView.as_view(), name="facts"),
    path("me/facts/add/", facts.FactAddView.as_view(), name="fact-add"),
    path("me/facts/<int:pk>/edit/", facts.FactEditView.as_view(), name="fact-edit"),
    path("me/facts/<int:pk>/archive/", facts.FactArchiveView.as_view(), name="fact-archive"),
    path("me/facts/<int:pk>/restore/", facts.FactRestoreView.as_view(), name="fact-restore"),
    path("me/facts/<int:pk>/sensitive/", facts.FactSensitiveView.as_view(), name="fact-sensitive"),
    # SPEC P-10: bringing memories in; the imported suggestions wait on the same page.
    path("me/facts/import/", imports.ImportView.as_view(), name="import"),
    path("me/facts/import/suggestions/confirm/", proposals.ProposalsConfirmView.as_view(), name="imported-confirm"),
    path("me/facts/import/suggestions/ignore/", proposals.ProposalsIgnoreView.as_view(), name="imported-ignore"),
    path("me/assistants/", assistants.AssistantsView.as_view(), name="assistants"),
    path("me/assistants/<int:pk>/", assistants.AssistantView.as_view(), name="assistant"),
    path("me/assistants/<int:pk>/shares/", assistants.SharesView.as_view(), name="assistant-shares"),
    path("me/assistants/<int:pk>/narrow/", assistants.NarrowView.as_view(), name="assistant-narrow"),
    path("me/assistants/<int:pk>/revoke/", assistants.RevokeView.as_view(), name="assistant-revoke"),
    path("me/assistants/<int:pk>/suggestions/ignore/", proposals.ProposalsIgnoreView.as_view(),
         name="assistant-ignore"),
    path("me/assistants/<int:pk>/suggestions/confirm/", proposals.ProposalsConfirmView.as_view(),
         name="assistant-confirm"),
    path("me/proposals/<int:pk>/confirm/", proposals.ProposalConfirmView.as_view(), name="proposal-confirm"),
    path("me/proposals/<int:pk>/edit/", proposals.ProposalEditView.as_view(), name="proposal-edit"),
    path("me/proposals/<int:pk>/ignore/", proposals.ProposalIgnoreView.as_view(), name="proposal-ignore"),
    path("me/export/", export.ExportView.as_view(), name="export"),
    path("me/notices/", notices.NoticesView.as_view(), name="notices"),
    path("me/notices/save/", notices.NoticesSaveView.as_view(), name="notices-save"),
    # The link of every e-mail notice: no login, a signed token (SPEC W-7).
    path("notices/unsubscribe/<str:token>/", notices.UnsubscribeView.as_view(), name="unsubscribe"),
    path("me/staff-access/", staff_access.StaffAccessView.as_view(), name="staff-access"),
]
