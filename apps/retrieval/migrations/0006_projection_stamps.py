"""A change stamp per person's projection rows, kept by the database (PostgreSQL only; SPEC S-4, R-5).

A search by meaning compares the vectors of the rows in its scope: the readable
fields of the visible records. Listing those rows' ids and change stamps cost
every search about as much as the keyword statement itself (20,000 rows for
10,000 facts). Every statement that inserts, updates, deletes or truncates
projection rows now sets a new random stamp for each owner whose rows it
touched, in the same transaction, whoever writes (the indexing service, the
embedding task, a bulk load, raw SQL). With the stamps of the visible set's
own sources (``consent`` migration ``0003``), a process that listed a scope
once knows whether that list may have changed with one small read
(``vectors._scope``; docs/search.md
"Speed and memory"). Owners with rows get a first stamp here; SQLite lists the
scope on every search and needs none.
"""

from django.db import migrations

STAMPS = "retrieval_projectionstamp"
TABLE = "retrieval_searchprojection"

NEW_STAMP = "(random() * 9.2e18)::bigint"

# One function per event: PostgreSQL allows transition tables only on single-event triggers.
FUNCTION = """
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO {stamps} (owner_id, stamp)
    SELECT changed.owner_id, {new} FROM ({rows}) AS changed (owner_id)
    ON CONFLICT (owner_id) DO UPDATE SET stamp = EXCLUDED.stamp;
    RETURN NULL;
END
$$"""

# Per event: when the trigger fires, what it declares, and the owners of the rows it wrote.
EVENTS = {
    "insert": ("AFTER INSERT", "REFERENCING NEW TABLE AS new_rows", "SELECT DISTINCT owner_id FROM new_rows"),
    "update": ("AFTER UPDATE", "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
               "SELECT owner_id FROM old_rows UNION SELECT owner_id FROM new_rows"),
    "delete": ("AFTER DELETE", "REFERENCING OLD TABLE AS old_rows", "SELECT DISTINCT owner_id FROM old_rows"),
    # TRUNCATE fires none of the others: every owner still holding rows gets a new stamp first.
    "truncate": ("BEFORE TRUNCATE", "", f"SELECT DISTINCT owner_id FROM {TABLE}"),
}


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"CREATE TABLE IF NOT EXISTS {STAMPS} (owner_id bigint PRIMARY KEY, stamp bigint NOT NULL)")
    for event, (when, referencing, rows) in EVENTS.items():
        name = f"{STAMPS}_{event}"
        schema_editor.execute(FUNCTION.format(name=name, stamps=STAMPS, new=NEW_STAMP, rows=rows))
        schema_editor.execute(
            f"CREATE TRIGGER {name} {when} ON {TABLE} {referencing} FOR EACH STATEMENT EXECUTE FUNCTION {name}()")
    schema_editor.execute(
        f"INSERT INTO {STAMPS} (owner_id, stamp) SELECT present.owner_id, {NEW_STAMP}"
        f" FROM (SELECT DISTINCT owner_id FROM {TABLE}) AS present ON CONFLICT (owner_id) DO NOTHING")


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for event in EVENTS:
        name = f"{STAMPS}_{event}"
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name} ON {TABLE}")
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {name}()")
    schema_editor.execute(f"DROP TABLE IF EXISTS {STAMPS}")


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0005_projection_field_vectors")]

    operations = [migrations.RunPython(forward, backward)]
