from django.apps import AppConfig


class RetrievalConfig(AppConfig):
    name = "apps.retrieval"
    label = "retrieval"

    def ready(self) -> None:
        """Index every memory write in its own transaction (SPEC R-6)."""
        from apps.retrieval import signals

        signals.connect()
