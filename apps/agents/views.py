"""The internal API (SPEC R-2 … R-4): start a run, list / search / read within it, end it.

Design notes: docs/design.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.http import HttpResponse, QueryDict
from rest_framework.parsers import BaseParser
from rest_framework.views import APIView

from apps.agents import openapi, services
from apps.agents.authentication import AgentAuthentication, IsAgent
from apps.common.replicas import read_tolerating_lag
from apps.retrieval.layer import LayerError, handle
from apps.retrieval.layer.documents import encode
from apps.retrieval.layer.parsing import expect_object, expect_string, loads

if TYPE_CHECKING:
    from rest_framework.request import Request

    from apps.agents.models import RunSnapshot

THREAD_MAX = 200


def _json(payload: object, status: int = 200) -> HttpResponse:
    return HttpResponse(encode(payload), status=status, content_type="application/json")


def _error(error: LayerError) -> HttpResponse:
    return _json({"error": error.as_dict()}, status=error.http_status)


def _run_json(run: RunSnapshot) -> dict[str, Any]:
    return {
        "run_id": str(run.run_id),
        "thread_id": run.thread_id,
        "agent_id": run.agent_key,
        "user": run.user_id,
        "audience": run.audience,
        "grant": run.grant,
        "started_at": run.started_at.isoformat().replace("+00:00", "Z"),
        "ended_at": run.ended_at.isoformat().replace("+00:00", "Z") if run.ended_at else None,
    }


class UnparsedBody(BaseParser):
    """DRF must not parse bodies (its JSON parser accepts duplicate keys): the layer does, strictly."""

    media_type = "*/*"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> QueryDict:
        return QueryDict()


class AgentAPIView(APIView):
    authentication_classes = [AgentAuthentication]
    permission_classes = [IsAgent]
    parser_classes = [UnparsedBody]

    def body(self, request: Request) -> dict[str, Any]:
        content_type = request.content_type.split(";")[0].strip().lower()
        if content_type != "application/json":
            raise LayerError("unsupported_media_type", "send the body as application/json", pointer="")
        body = loads(request.body)
        if not isinstance(body, dict):
            raise LayerError("invalid_type", "expected a JSON object", pointer="")
        return body

    def thread(self, body: dict) -> str:
        """Take ``thread_id`` (required) out of ``body``; the rest belongs to the operation."""
        if "thread_id" not in body:
            raise LayerError("missing_key", "'thread_id' is required", pointer="/thread_id")
        if body["thread_id"] is None:
            raise LayerError("null_not_allowed", "null is not a value", pointer="/thread_id")
        return expect_string(body.pop("thread_id"), "/thread_id", max_length=THREAD_MAX)

    def handle_exception(self, exc: Exception) -> Any:
        if isinstance(exc, LayerError):
            return _error(exc)
        return super().handle_exception(exc)


class RunStartView(AgentAPIView):
    def post(self, request: Request) -> HttpResponse:
        body = self.body(request)
        thread_id = self.thread(body)
        expect_object(body, "", required=("user",))
        user = body["user"]
        if isinstance(user, bool) or not isinstance(user, int) or user < 1:
            raise LayerError("invalid_type", "expected a user id (a positive integer)", pointer="/user")
        run = services.run_start(
            policy=request.user.policy,  # type: ignore[union-attr]  # an Agent (IsAgent)
            user_id=user, thread_id=thread_id,
        )
        return _json(_run_json(run), status=201)


class RunOperationView(AgentAPIView):
    operation = ""  # "list" | "search" | "read"

    def post(self, request: Request, run_id: str) -> HttpResponse:
        body = self.body(request)
        thread_id = self.thread(body)
        # The run is read from the primary (the agent may have started it a moment ago); what it lists,
        # searches and reads tolerates a replica's lag (SPEC O-4).
        access = services.run_access(
            policy=request.user.policy,  # type: ignore[union-attr]  # an Agent (IsAgent)
            run_id=run_id, thread_id=thread_id,
        )
        return read_tolerating_lag(lambda: _json(handle(access, self.operation, body)))


class RunEndView(AgentAPIView):
    def post(self, request: Request, run_id: str) -> HttpResponse:
        body = self.body(request)
        thread_id = self.thread(body)
        expect_object(body, "")
        run = services.run_end(
            policy=request.user.policy,  # type: ignore[union-attr]  # an Agent (IsAgent)
            run_id=run_id, thread_id=thread_id,
        )
        return _json(_run_json(run))


class OpenAPIView(AgentAPIView):
    def get(self, request: Request) -> HttpResponse:
        return _json(openapi.schema())
