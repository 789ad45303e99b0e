import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="SearchProjection",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("resource_type", models.CharField(max_length=32, verbose_name="resource type")),
                ("record_id", models.BigIntegerField(verbose_name="record id")),
                ("field", models.CharField(max_length=200, verbose_name="field (JSON Pointer)")),
                ("text", models.TextField(verbose_name="matching text")),
                ("updated_at", models.DateTimeField(verbose_name="updated")),
                (
                    "owner",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "verbose_name": "search projection row",
                "verbose_name_plural": "search projection rows",
                "indexes": [
                    models.Index(fields=["owner", "resource_type", "field"], name="projection_owner_type_field")
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("resource_type", "record_id", "field"), name="projection_one_per_field"
                    )
                ],
            },
        ),
    ]
