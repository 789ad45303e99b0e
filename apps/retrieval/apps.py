from django.apps import AppConfig


class RetrievalConfig(AppConfig):
    name = "apps.retrieval"
    label = "retrieval"

    def ready(self) -> None:
        """Index every memory write in its own transaction (SPEC R-6)."""
        from apps.retrieval import searchable, signals  # noqa: F401  (searchable registers the declarations)
        from apps.retrieval.layer.indexed import register_searchable

        register_searchable()  # the other resource types' searchable fields
        signals.connect()
