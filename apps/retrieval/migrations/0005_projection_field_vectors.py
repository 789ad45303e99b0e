"""Each projection row's meaning vector and the model that made it (SPEC S-4, docs/search.md).

Two nullable columns: ``ALTER TABLE ADD COLUMN`` on both databases, so
SQLite keeps the table and its FTS triggers (no re-creation), and
PostgreSQL does not rewrite it. Existing rows have no vector until
``manage.py rebuild_search_projection`` embeds them; until then they are
found by words, as before.
"""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('retrieval', '0004_stored_search_vector'),
    ]

    operations = [
        migrations.AddField(
            model_name='searchprojection',
            name='vector',
            field=models.BinaryField(null=True, verbose_name='meaning vector'),
        ),
        migrations.AddField(
            model_name='searchprojection',
            name='vector_model',
            field=models.CharField(editable=False, max_length=100, null=True, verbose_name='vector model'),
        ),
    ]
