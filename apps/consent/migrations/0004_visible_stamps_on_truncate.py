"""Change stamps on ``TRUNCATE`` as well (PostgreSQL only; see ``0003``).

``TRUNCATE`` fires no row or statement trigger for inserts, updates or
deletes, so a truncated fact or share table left every stamp as it was, and a
process that remembered a set's digests under those stamps would have gone on
answering them. A ``BEFORE TRUNCATE`` trigger on each source table now sets a
new stamp for every owner (facts) or connection (shares) that still has rows
there — also one whose rows were written before the stamps existed and so has
no stamp yet. Truncating costs one pass over the table's keys; the product
never truncates these tables, a test database's flush does.
"""

from django.db import migrations

STAMPS = "consent_visiblestamp"

FUNCTION = """
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO {stamps} (kind, key, stamp)
    SELECT '{kind}', present.key, (random() * 9.2e18)::bigint
    FROM (SELECT DISTINCT {column} FROM {table}) AS present (key)
    ON CONFLICT (kind, key) DO UPDATE SET stamp = EXCLUDED.stamp;
    RETURN NULL;
END
$$"""


# (app, model, field keying the stamp, kind) of each source of the visible set, as in ``0003``.
SOURCES = (("memory", "Fact", "owner", "f"), ("consent", "FactShare", "connection", "s"))


def _triggers(apps):
    for app_label, model_name, field, kind in SOURCES:
        meta = apps.get_model(app_label, model_name)._meta
        yield meta.db_table, meta.get_field(field).column, f"{STAMPS}_{kind}_truncate", kind


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table, column, name, kind in _triggers(apps):
        schema_editor.execute(FUNCTION.format(name=name, stamps=STAMPS, kind=kind, column=column, table=table))
        schema_editor.execute(
            f"CREATE TRIGGER {name} BEFORE TRUNCATE ON {table} FOR EACH STATEMENT EXECUTE FUNCTION {name}()"
        )


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table, _, name, _ in _triggers(apps):
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name} ON {table}")
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {name}()")


class Migration(migrations.Migration):
    dependencies = [("consent", "0003_visible_set_stamps")]

    operations = [migrations.RunPython(forward, backward)]
