"""Declarations (SPEC R-1), field authorization by path (SPEC R-5), the external cap (SPEC R-11)."""

import pytest
from django.db import connection, models, transaction
from django.test.utils import isolate_apps

from apps.common import clock
from apps.memory.projection import record_written
from apps.retrieval.layer import Grant, GrantInvalid, LayerError, external_grant
from apps.retrieval.layer.access import view
from apps.retrieval.layer.adapters import ModelAdapter
from apps.retrieval.layer.audiences import EXTERNAL_SCOPES, EXTERNALLY_PUBLISHABLE
from apps.retrieval.layer.declarations import ALL_FIELDS, Declaration, DeclarationError, Field, Filter
from apps.retrieval.layer.registry import registry
from apps.retrieval.registry import indexed_type
from tests.retrieval.layer.builders import OPS, access, call

TYPES = {"episode", "transcript", "calendar", "todo", "contact", "voice_memo", "digest", "intent", "user_profile"}


def test_the_nine_types_are_declared():  # SPEC D-6, R-1
    assert {r.type for r in registry.all()} == TYPES
    for resource in registry.all():
        assert resource.declaration.searchable and resource.declaration.readable["internal"]


@pytest.mark.parametrize(("fields", "extra", "message"), [
    ((Field("/a/b", "string"),), {}, "parent /a must be declared"),
    ((Field("/a", "object"), Field("/a/*", "string")), {}, "must be an array"),
    ((Field("/a", "array"), Field("/a/b", "string")), {}, "must be an object"),
    ((Field("/n", "integer", searchable=True),), {}, "only string and text"),
    ((Field("/who", "string", name=True),), {}, "names must be searchable"),
    ((Field("/a", "array"),), {}, "needs declared children"),
    ((Field("/t", "string"),), {"readable": {"internal": ("/x",)}}, "not declared"),
    ((Field("/t", "string"),), {"filters": (Filter("f", "string", field="/x", lookup="x"),)}, "declared field"),
    ((Field("/t", "string"),), {"order": "/t"}, "must be a timestamp"),
])
def test_a_declaration_that_contradicts_itself_is_refused(fields, extra, message):  # SPEC R-1
    with pytest.raises(DeclarationError, match=message):
        Declaration(type="thing", description="", fields=fields, **extra)


def test_types_other_than_the_five_can_never_be_published_externally():  # SPEC R-11
    assert EXTERNALLY_PUBLISHABLE == {"episode", "calendar", "todo", "voice_memo", "contact"}
    with pytest.raises(DeclarationError, match="R-11"):
        Declaration(type="digest_copy", description="", fields=(Field("/t", "string"),),
                    readable={"external": ALL_FIELDS})
    for resource in registry.all():
        assert bool(resource.declaration.readable.get("external")) == (resource.type in EXTERNALLY_PUBLISHABLE)


@pytest.mark.django_db
def test_the_external_audience_is_capped_whatever_the_grant_says(user):  # SPEC
    everything = {r.type: {"operations": OPS, "fields": [""]} for r in registry.all()}
    external = access(user, everything, audience="external")
    assert {e["type"] for e in call(external, "list")["resources"]} == EXTERNALLY_PUBLISHABLE
    with pytest.raises(LayerError) as refused:
        call(external, "read", ref="transcript:1")
    assert refused.value.code == "resource_not_permitted"
    todo = next(e for e in call(external, "list")["resources"] if e["type"] == "todo")
    todo_fields = {f["path"] for f in todo["fields"]}
    assert "/notes" not in todo_fields and "/title" in todo_fields
    # Each published type behind its own scope.
    assert set(external_grant({EXTERNAL_SCOPES["todo"], "profile:read"}).types) == {"todo"}
    assert external_grant(set()).types == {}


def test_a_child_path_grants_neither_its_parent_nor_its_siblings():  # SPEC R-5
    episode = registry.get("episode")
    grant = Grant.from_json({"episode": {"operations": ["read"], "fields": ["/participants/*/display_name"]}})
    assert episode.declaration.leaves_under(grant.types["episode"].fields) == {"/participants/*/display_name"}
    parent = Grant.from_json({"episode": {"operations": ["read"], "fields": ["/participants"]}})
    assert episode.declaration.leaves_under(parent.types["episode"].fields) == {
        "/participants/*/display_name", "/participants/*/role", "/participants/*/contact"}
    # The intersection of a parent and a child is the child, from either side.
    both = parent.intersect(grant)
    assert both.types["episode"].fields == ("/participants/*/display_name",)
    assert grant.intersect(parent).types["episode"].fields == ("/participants/*/display_name",)
    # Intersecting away every field or every operation removes the type.
    other = Grant.from_json({"episode": {"operations": ["read"], "fields": ["/title"]}})
    assert grant.intersect(other).types == {}


@pytest.mark.parametrize("fields", [["/participants/*/email"], ["/nope"], ["participants"], ["/participants/0/role"]])
def test_a_grant_naming_an_undeclared_path_cannot_be_read(fields):  # SPEC R-5
    with pytest.raises(GrantInvalid):
        Grant.from_json({"episode": {"operations": ["read"], "fields": fields}})


# --- A tenth type: a declaration and an adapter, nothing else (SPEC R-1) -------------------

RECIPE = Declaration(
    type="recipe",
    description="A dish the owner cooks.",
    fields=(
        Field("/name", "string", searchable=True),
        Field("/steps", "array"),
        Field("/steps/*", "object"),
        Field("/steps/*/text", "text", searchable=True),
        Field("/steps/*/minutes", "integer"),
        Field("/secret", "text", searchable=True),
        Field("/created_at", "timestamp"),
        Field("/updated_at", "timestamp"),
    ),
    filters=(Filter("name", "string", field="/name", lookup="name"),),
    readable={"internal": ALL_FIELDS},
    title="/name",
    order="/created_at",
)


@pytest.fixture
def recipe_type():
    with isolate_apps("apps.agents"):  # a registry of its own: the real app never sees the model
        class Recipe(models.Model):  # noqa: DJ008 - a throwaway model
            owner_id = models.BigIntegerField()
            name = models.CharField(max_length=100)
            steps = models.JSONField(default=list)
            secret = models.TextField(default="")
            created_at = models.DateTimeField()
            updated_at = models.DateTimeField()
            deleted_at = models.DateTimeField(null=True)

            class Meta:
                app_label = "agents"
                db_table = "throwaway_recipe"

        class RecipeAdapter(ModelAdapter):
            model = Recipe

        with connection.schema_editor() as editor:
            editor.create_model(Recipe)
        # One registry: the search projection indexes the type as soon as it is declared.
        try:
            registry.get(RECIPE.type)  # the real types first, so this one is added to them
            registry.register(RECIPE, RecipeAdapter())
            try:
                assert indexed_type(RECIPE.type).model is Recipe
                yield Recipe
            finally:
                registry.unregister(RECIPE.type)
        finally:
            with connection.schema_editor() as editor:
                editor.delete_model(Recipe)


@pytest.mark.django_db(transaction=True)
def test_a_tenth_type_is_a_declaration_and_an_adapter(recipe_type, user):  # SPEC
    with transaction.atomic():  # what a write service does: the row, then the projection, one transaction
        now = clock.now()
        dish = recipe_type.objects.create(
            owner_id=user.pk, name="番茄炒蛋 Tomato eggs", created_at=now, updated_at=now,
            steps=[{"text": "Beat the eggs", "minutes": 2, "chef_only": "x"}, {"text": "炒番茄", "minutes": 5}],
            secret="grandma's pinch of sugar",
        )
        record_written(dish)
    ref = f"recipe:{dish.pk}"
    everything = access(user, {"recipe": {"operations": OPS, "fields": [""]}})
    assert [e["type"] for e in call(everything, "list")["resources"]] == ["recipe"]
    listed = call(everything, "list", resource="recipe", filters={"name": dish.name})
    assert [item["ref"] for item in listed["items"]] == [ref]
    assert call(everything, "read", ref=ref)["data"]["steps"] == [
        {"text": "Beat the eggs", "minutes": 2}, {"text": "炒番茄", "minutes": 5}]
    hit = call(everything, "search", query="番茄")["hits"][0]
    assert (hit["ref"], hit["title"]) == (ref, dish.name)
    assert call(everything, "search", query="sugar")["hits"][0]["snippet"]["path"] == "/secret"
    # Its fields are authorized by path like any other type's.
    steps_only = access(user, {"recipe": {"operations": OPS, "fields": ["/steps/*/text"]}})
    assert call(steps_only, "search", query="sugar")["hits"] == []
    assert call(steps_only, "search", query="eggs")["hits"][0]["snippet"] == {"path": "/steps/0/text",
                                                                              "text": "Beat the eggs"}
    assert call(steps_only, "read", ref=ref)["data"] == {"steps": [{"text": "Beat the eggs"}, {"text": "炒番茄"}]}
    assert view(steps_only, "recipe").operations == frozenset(OPS)
