"""The database's own index over the projection text (SPEC R-7), created only where it applies.

PostgreSQL: the pg_trgm extension and a GIN (gin_trgm_ops) index on ``text``.
SQLite: an external-content FTS5 table with the trigram tokenizer, and the
triggers that keep it in step with the projection rows in the same transaction.
"""

from django.db import migrations

from apps.common.vendor_sql import run_for_vendor

TABLE = "retrieval_searchprojection"
FTS = f"{TABLE}_fts"

POSTGRES_FORWARD = [
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    f"CREATE INDEX IF NOT EXISTS projection_text_trgm ON {TABLE} USING gin (text gin_trgm_ops)",
]
POSTGRES_BACKWARD = ["DROP INDEX IF EXISTS projection_text_trgm"]

SQLITE_FORWARD = [
    f"CREATE VIRTUAL TABLE {FTS} USING fts5(text, content='{TABLE}', content_rowid='id', tokenize='trigram')",
    f"""CREATE TRIGGER {TABLE}_ai AFTER INSERT ON {TABLE} BEGIN
        INSERT INTO {FTS}(rowid, text) VALUES (new.id, new.text);
    END""",
    f"""CREATE TRIGGER {TABLE}_ad AFTER DELETE ON {TABLE} BEGIN
        INSERT INTO {FTS}({FTS}, rowid, text) VALUES ('delete', old.id, old.text);
    END""",
    f"""CREATE TRIGGER {TABLE}_au AFTER UPDATE ON {TABLE} BEGIN
        INSERT INTO {FTS}({FTS}, rowid, text) VALUES ('delete', old.id, old.text);
        INSERT INTO {FTS}(rowid, text) VALUES (new.id, new.text);
    END""",
    f"INSERT INTO {FTS}({FTS}) VALUES ('rebuild')",
]
SQLITE_BACKWARD = [
    f"DROP TRIGGER IF EXISTS {TABLE}_au",
    f"DROP TRIGGER IF EXISTS {TABLE}_ad",
    f"DROP TRIGGER IF EXISTS {TABLE}_ai",
    f"DROP TABLE IF EXISTS {FTS}",
]


class Migration(migrations.Migration):
    dependencies = [("retrieval", "0001_initial")]

    operations = [
        run_for_vendor(
            {"postgresql": POSTGRES_FORWARD, "sqlite": SQLITE_FORWARD},
            {"postgresql": POSTGRES_BACKWARD, "sqlite": SQLITE_BACKWARD},
        ),
    ]
