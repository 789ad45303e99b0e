"""A change stamp per person's current records, kept by the database (PostgreSQL only; SPEC S-4, R-5, R-6).

The layer's search by meaning compares the vectors of the rows in its scope:
the readable fields of the caller's *current* records of each type
(``layer.adapters``: ``searchable_records``). The projection rows' own stamp
(migration ``0006``) moves when the indexing service drops the rows of a
record it deleted, but a record can leave (or enter) that set with its
projection untouched: raw SQL, ``QuerySet.update()``, a hard DELETE, a
TRUNCATE, a bulk load that writes records after their rows. Without a stamp
for that, every layer search listed the ids of all the rows in its scope.

Every statement that inserts, deletes or truncates records of a searched
type, and every row update that changes what ``current()`` reads or the
record's owner (or id), now sets a new random stamp for each owner touched, in
the same transaction, whoever writes. The update trigger is row-level with a
WHEN clause, so an ordinary edit (a title, a status other than a fact's) is
checked without calling the function and writes nothing. An owner whose
records never changed currency has no row: their stamp reads 0 until the
first change stores a random one (``PostgresSearchBackend.records_stamp_sql``).
SQLite lists the scope on every search and needs none.
"""

from django.db import migrations

STAMPS = "retrieval_recordstamp"
NEW_STAMP = "(random() * 9.2e18)::bigint"

# The tables of the layer's searchable types and the column their ``current()`` reads
# (``layer.adapters``: ``ModelAdapter`` and ``UserProfileAdapter``), as of this migration.
CURRENCY = {
    "memory_calendarevent": "deleted_at",
    "memory_contact": "deleted_at",
    "memory_digest": "deleted_at",
    "memory_episode": "deleted_at",
    "memory_intent": "deleted_at",
    "memory_todo": "deleted_at",
    "memory_transcript": "deleted_at",
    "memory_voicememo": "deleted_at",
    "memory_fact": "status",
}

FUNCTION = """
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    {body};
    RETURN NULL;
END
$$"""

UPSERT = (f"INSERT INTO {STAMPS} (owner_id, stamp) SELECT changed.owner_id, {NEW_STAMP} FROM ({{rows}})"
          " AS changed (owner_id) ON CONFLICT (owner_id) DO UPDATE SET stamp = EXCLUDED.stamp")

# Per event: when the trigger fires, at what level, and the function's body. One function per event
# serves every table: PostgreSQL allows transition tables only on single-event triggers, and each
# trigger names its own the same.
EVENTS = {
    "insert": ("AFTER INSERT", "REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT",
               UPSERT.format(rows="SELECT DISTINCT owner_id FROM new_rows")),
    "delete": ("AFTER DELETE", "REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT",
               UPSERT.format(rows="SELECT DISTINCT owner_id FROM old_rows")),
    # Per row, and only where the WHEN clause (``_when``) holds: an edit that leaves the record's
    # currency, owner and id alone never calls the function.
    "update": ("AFTER UPDATE", "FOR EACH ROW WHEN ({when})",
               UPSERT.format(rows="SELECT OLD.owner_id UNION SELECT NEW.owner_id")),
    # TRUNCATE fires none of the others: every owner still holding records gets a new stamp first.
    # The table is the trigger's own (``TG_RELID``), named as SQL text: one function serves every table.
    "truncate": ("BEFORE TRUNCATE", "FOR EACH STATEMENT",
                 "EXECUTE '" + UPSERT.format(rows="SELECT DISTINCT owner_id FROM ' || TG_RELID::regclass || '")
                 + "'"),
}


def _when(column: str) -> str:
    return " OR ".join(f"OLD.{name} IS DISTINCT FROM NEW.{name}" for name in (column, "owner_id", "id"))


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"CREATE TABLE IF NOT EXISTS {STAMPS} (owner_id bigint PRIMARY KEY, stamp bigint NOT NULL)")
    for event, (_, _, body) in EVENTS.items():
        schema_editor.execute(FUNCTION.format(name=f"{STAMPS}_{event}", body=body))
    for table, column in CURRENCY.items():
        for event, (fires, level, _) in EVENTS.items():
            name = f"{STAMPS}_{event}"
            schema_editor.execute(f"CREATE TRIGGER {name} {fires} ON {table} {level.format(when=_when(column))}"
                                  f" EXECUTE FUNCTION {name}()")


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in CURRENCY:
        for event in EVENTS:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {STAMPS}_{event} ON {table}")
    for event in EVENTS:
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {STAMPS}_{event}()")
    schema_editor.execute(f"DROP TABLE IF EXISTS {STAMPS}")


class Migration(migrations.Migration):
    dependencies = [
        ("retrieval", "0008_cjk_pairs"),
        ("memory", "0002_fact_evidence_one_line_validator"),
    ]

    operations = [migrations.RunPython(forward, backward)]
