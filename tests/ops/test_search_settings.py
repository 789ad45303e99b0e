"""The embedder is chosen by the environment (SPEC S-4, O-2; docs/deploy.md)."""

import pytest
from django.core.exceptions import ImproperlyConfigured

LOCAL = "apps.retrieval.embeddings.local.LocalEmbedder"
REDIS = {"REDIS_URL": "redis://redis.internal:6379/0"}


def test_the_shipped_model_by_default_with_vectors_inline_locally_and_by_task_with_redis(settings_for):
    assert settings_for({})["SEARCH_EMBEDDINGS"] == {"BACKEND": LOCAL, "INLINE": True}
    assert settings_for(REDIS)["SEARCH_EMBEDDINGS"] == {"BACKEND": LOCAL, "INLINE": False}
    assert settings_for({**REDIS, "SEARCH_VECTORS_INLINE": "1"})["SEARCH_EMBEDDINGS"]["INLINE"] is True
    assert settings_for({"SEARCH_EMBEDDINGS": "off"})["SEARCH_EMBEDDINGS"] == {}


def test_an_http_service(settings_for):
    chosen = settings_for({"SEARCH_EMBEDDINGS": "http", "SEARCH_EMBEDDINGS_URL": "https://embed.internal/v1",
                           "SEARCH_EMBEDDINGS_MODEL": "bge-m3", "SEARCH_EMBEDDINGS_DIM": "1024"})["SEARCH_EMBEDDINGS"]
    assert chosen == {"BACKEND": "apps.retrieval.embeddings.remote.HttpEmbedder", "URL": "https://embed.internal/v1",
                      "MODEL": "bge-m3", "DIM": 1024, "API_KEY": "", "INLINE": True}


@pytest.mark.parametrize("environ", [
    {"SEARCH_EMBEDDINGS": "openai"},
    {"SEARCH_EMBEDDINGS": "http", "SEARCH_EMBEDDINGS_MODEL": "m", "SEARCH_EMBEDDINGS_DIM": "8"},
    {"SEARCH_EMBEDDINGS": "http", "SEARCH_EMBEDDINGS_URL": "http://x/v1", "SEARCH_EMBEDDINGS_MODEL": "m"},
])
def test_a_setting_that_cannot_work_stops_start_up(settings_for, environ):
    with pytest.raises(ImproperlyConfigured, match="SEARCH_EMBEDDINGS"):
        settings_for(environ)
