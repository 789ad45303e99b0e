"""The authorization server's endpoints: django-oauth-toolkit's views, configured (SPEC A-1 … A-9)."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.decorators import method_decorator
from django.utils.translation import gettext_lazy as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters, sensitive_variables
from oauth2_provider import views as dot_views
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.models import get_application_model
from oauthlib.oauth2.rfc6749 import errors

from apps.common.destinations import shown_destination
from apps.common.logging import SECRET_PARAMETERS  # never in a URL, an error report or a log (SPEC A-4)
from apps.common.text import shown_name
from apps.consent import scopes as scope_rules
from apps.consent.services import ConsentError, connection_authorize
from apps.memory.models import Category
from apps.oauth.cimd import verified_host
from apps.oauth.forms import ConsentForm
from apps.oauth.offers import Offer, OfferInvalid
from apps.oauth.page_policy import CONSENT_PAGE_POLICY
from apps.oauth.resource import resource_error
from apps.oauth.validators import pkce_problem


def _secret_in_query(request: HttpRequest) -> bool:
    return any(name in request.GET for name in SECRET_PARAMETERS)


def _query_refused() -> JsonResponse:
    return JsonResponse(
        {
            "error": "invalid_request",
            "error_description": "Codes, tokens and verifiers must be sent in the request body, never in the URL.",
        },
        status=400,
    )


# SPEC A-7 (home)
@method_decorator(never_cache, name="dispatch")
@method_decorator(sensitive_post_parameters(*SECRET_PARAMETERS), name="dispatch")
@method_decorator(CONSENT_PAGE_POLICY, name="dispatch")
class ConsentView(dot_views.AuthorizationView):
    """The consent page: who is asking, for what, and which categories it may ever see (SPEC A-7, A-9).

    Always asks (no silent re-approval) and records the choice in the code's transaction.
    """

    template_name = "oauth/authorize.html"
    form_class = ConsentForm

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            scopes, credentials = self.validate_authorization_request(request)
        except OAuthToolkitError as error:
            return self.error_response(error, application=None)
        application = get_application_model().objects.get(client_id=credentials["client_id"])
        problem = self._request_problem(request, credentials)
        if problem is not None:
            return self.error_response(
                OAuthToolkitError(error=problem, redirect_uri=credentials["redirect_uri"]), application
            )
        offer = Offer.from_request(scopes=scopes, credentials=credentials, resource=settings.MCP_RESOURCE_URL)
        return self._page(ConsentForm(offer=offer, initial={"offer": offer.sign(user=request.user)}), application)

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            offer = Offer.unsign(request.POST.get("offer", ""), user=request.user)
            application = get_application_model().objects.get(client_id=offer.client_id)
        except (OfferInvalid, get_application_model().DoesNotExist):
            return self.render_to_response({"view": self, "offer_invalid": True}, status=400)
        if "allow" not in request.POST:
            return self._respond(offer, application, scopes=[], allow=False)
        form = ConsentForm(data=request.POST, offer=offer)
        if not form.is_valid():
            return self._page(form, application, status=400)
        try:
            with transaction.atomic():
                # SPEC A-7: the person's choice creates or replaces the connection's scopes and categories.
                connection_authorize(
                    user=request.user,  # type: ignore[arg-type]  # the consent page is behind the login
                    application=application,
                    scopes=set(form.cleaned_data["scopes"]),
                    categories=set(form.cleaned_data["categories"]),
                )
                return self._respond(offer, application, scopes=form.cleaned_data["scopes"], allow=True)
        except ConsentError as exc:
            form.add_error(None, exc.message)
            return self._page(form, application, status=400)

    def _respond(self, offer: Offer, application: Any, *, scopes: list[str], allow: bool) -> HttpResponse:
        """Create the code (or the refusal) and send the browser back to the assistant.

        No code means the connection change is rolled back too (SPEC A-9).
        """
        try:
            uri, _headers, _body, _status = self.create_authorization_response(
                request=self.request, scopes=" ".join(scopes), credentials=offer.credentials(), allow=allow
            )
        except OAuthToolkitError as error:
            if allow:
                transaction.set_rollback(True)
            return self.error_response(error, application)
        params = parse_qs(urlsplit(uri).query)
        if allow and ("code" not in params or "error" in params):
            transaction.set_rollback(True)
        return self.redirect(uri, application)

    @staticmethod
    def _request_problem(request: HttpRequest, credentials: dict[str, Any]) -> Any:
        """Refuse before showing the page: the resource must be /mcp, PKCE S256 with a well-formed challenge.

        SPEC A-1, A-6; RFC 7636 §4.2 for the challenge's form.
        """
        state = credentials.get("state")
        if "none" in request.GET.get("prompt", "").split():
            return errors.ConsentRequired(state=state)
        problem = pkce_problem(credentials.get("code_challenge_method"), credentials.get("code_challenge"))
        if problem is not None:
            return errors.InvalidRequestError(description=problem, state=state)
        return resource_error(request.GET.getlist("resource"), state=state)

    def _page(self, form: Any, application: Any, status: int = 200) -> HttpResponse:
        offer = form.offer
        chosen_scopes = set(form["scopes"].value() or [])
        chosen_categories = set(form["categories"].value() or [])
        context = self.get_context_data(
            form=form,
            application=application,
            assistant_name=shown_name(application.name),
            redirect_host=shown_destination(offer.redirect_uri),
            verified_host=verified_host(application),
            scope_rows=[
                {"name": name, "description": scope_rules.DESCRIPTIONS[name], "checked": name in chosen_scopes}
                for name in offer.scopes
            ],
            category_rows=[
                {
                    "code": code,
                    "label": label,
                    "shareable": Category.is_shareable(code),
                    "checked": code in chosen_categories and Category.is_shareable(code),
                }
                for code, label in Category.choices
            ],
            closed_reason=_("Cannot be shared with assistants"),
        )
        return self.render_to_response(context, status=status)


class TokenView(dot_views.TokenView):
    """Code exchange and refresh; credentials in the query string are refused (SPEC A-4)."""

    @method_decorator(sensitive_variables())
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if _secret_in_query(request):
            return _query_refused()
        # Not super().post(): it sends the device grant to a device-code lookup of its own (SPEC A-1: no
        # such grant); every grant goes through the server, which routes only the product's (server.py).
        response = self.authorization_flow_token_response(request)
        # An error raised while saving tokens comes back without headers; it is JSON all the same.
        response["Content-Type"] = "application/json"
        response.setdefault("Cache-Control", "no-store")
        return response

    # Declared here, the innermost call, because the toolkit's own declaration (password and
    # client_secret only) sits on a method in between and would replace one made on post().
    @method_decorator(sensitive_post_parameters(*SECRET_PARAMETERS))
    def create_token_response(self, request: HttpRequest) -> Any:
        return super().create_token_response(request)


class RevokeTokenView(dot_views.RevokeTokenView):
    """RFC 7009 revocation; a token in the query string is refused (SPEC A-4)."""

    @method_decorator(sensitive_variables())
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if _secret_in_query(request):
            return _query_refused()
        return super().post(request, *args, **kwargs)

    @method_decorator(sensitive_post_parameters(*SECRET_PARAMETERS))
    def create_revocation_response(self, request: HttpRequest) -> Any:
        return super().create_revocation_response(request)
