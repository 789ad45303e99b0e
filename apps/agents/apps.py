from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AgentsConfig(AppConfig):
    name = "apps.agents"
    label = "agents"
    verbose_name = _("Internal agents")

    def ready(self):
        # The declared types' searchable fields reach the search projection (SPEC R-6).
        from apps.retrieval.layer.indexed import register_searchable

        register_searchable()
