from django.apps import AppConfig


class RetrievalConfig(AppConfig):
    name = "apps.retrieval"
    label = "retrieval"

    def ready(self) -> None:
        """Index every memory write in its own transaction (SPEC R-6)."""
        from apps.memory import projection
        from apps.retrieval import searchable  # noqa: F401  (registers the declarations)
        from apps.retrieval.layer.indexed import register_searchable

        register_searchable()  # the other resource types' searchable fields
        projection.subscribe(_on_write)


def _on_write(instance):
    from apps.retrieval.services import projection_write

    projection_write(instance=instance)
