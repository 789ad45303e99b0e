"""Mounted under ``/internal/`` by ``config.urls``."""

from django.urls import path

from apps.agents import views

app_name = "agents"

urlpatterns = [
    path("openapi.json", views.OpenAPIView.as_view(), name="openapi"),
    path("runs", views.RunStartView.as_view(), name="run-start"),
    path("runs/<uuid:run_id>/list", views.RunOperationView.as_view(operation="list"), name="run-list"),
    path("runs/<uuid:run_id>/search", views.RunOperationView.as_view(operation="search"), name="run-search"),
    path("runs/<uuid:run_id>/read", views.RunOperationView.as_view(operation="read"), name="run-read"),
    path("runs/<uuid:run_id>/end", views.RunEndView.as_view(), name="run-end"),
]
