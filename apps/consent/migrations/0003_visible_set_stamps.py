"""Change stamps of the visible set's sources, kept by the database (PostgreSQL only).

A connection's visible set (``consent.selectors._visible``) is made of its
owner's rows in the fact table and its own rows in the share table. Every
statement that inserts, updates or deletes rows there sets a new random stamp
for each owner (kind ``f``) or connection (kind ``s``) it touched, in the same
transaction, whoever writes: the services, the admin, a bulk load or raw SQL.
While both stamps of a connection are unchanged, so is its visible set; the
read of the set (``visible_set_read``) then skips summing up the whole set
again (docs/performance.md). Statement-level triggers with transition tables:
one stamp write per statement and owner, however many rows it touched.

SQLite (local development) computes the set's digests in Python and needs no
stamps.
"""

from django.db import migrations

STAMPS = "consent_visiblestamp"

# kind: 'f' — the facts of owner ``key``; 's' — the shares of connection ``key``.
CREATE_TABLE = f"""
CREATE TABLE IF NOT EXISTS {STAMPS} (
    kind char(1) NOT NULL,
    key bigint NOT NULL,
    stamp bigint NOT NULL,
    PRIMARY KEY (kind, key)
)"""

FUNCTION = """
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO {stamps} (kind, key, stamp)
        SELECT '{kind}', changed.{column}, (random() * 9.2e18)::bigint
        FROM (SELECT DISTINCT {column} FROM new_rows) changed
        ON CONFLICT (kind, key) DO UPDATE SET stamp = EXCLUDED.stamp;
    END IF;
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO {stamps} (kind, key, stamp)
        SELECT '{kind}', changed.{column}, (random() * 9.2e18)::bigint
        FROM (SELECT DISTINCT {column} FROM old_rows) changed
        ON CONFLICT (kind, key) DO UPDATE SET stamp = EXCLUDED.stamp;
    END IF;
    RETURN NULL;
END
$$"""

# PostgreSQL allows transition tables only on single-event triggers: one trigger per event.
TRIGGERS = {
    "INSERT": "REFERENCING NEW TABLE AS new_rows",
    "UPDATE": "REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
    "DELETE": "REFERENCING OLD TABLE AS old_rows",
}


def _sources(apps) -> list[tuple[str, str, str]]:
    """(table, column keying the stamp, kind) of each source of the visible set."""
    fact = apps.get_model("memory", "Fact")._meta
    share = apps.get_model("consent", "FactShare")._meta
    return [
        (fact.db_table, fact.get_field("owner").column, "f"),
        (share.db_table, share.get_field("connection").column, "s"),
    ]


def forward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(CREATE_TABLE)
    for table, column, kind in _sources(apps):
        name = f"{STAMPS}_{kind}"
        schema_editor.execute(FUNCTION.format(name=name, stamps=STAMPS, kind=kind, column=column))
        for event, referencing in TRIGGERS.items():
            schema_editor.execute(
                f"CREATE TRIGGER {name}_{event.lower()} AFTER {event} ON {table} {referencing} "
                f"FOR EACH STATEMENT EXECUTE FUNCTION {name}()"
            )


def backward(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    for table, _, kind in _sources(apps):
        name = f"{STAMPS}_{kind}"
        for event in TRIGGERS:
            schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}_{event.lower()} ON {table}")
        schema_editor.execute(f"DROP FUNCTION IF EXISTS {name}()")
    schema_editor.execute(f"DROP TABLE IF EXISTS {STAMPS}")


class Migration(migrations.Migration):
    dependencies = [
        ("consent", "0002_proposal_status_expires"),
        ("memory", "0002_fact_evidence_one_line_validator"),
    ]

    operations = [migrations.RunPython(forward, backward)]
