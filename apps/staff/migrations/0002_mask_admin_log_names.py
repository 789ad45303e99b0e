"""Admin log entries written before content was masked named records by their text: name them by type and id.

SPEC AD-2: the admin's "Recent actions" box shows ``object_repr``; models of a person's content now name
themselves by type and id, and this brings the older entries in line. Nothing to undo.
"""

from django.db import migrations

CONTENT_MODELS = {
    "memory": ("fact", "transcript", "calendarevent", "todo", "contact", "episode", "voicememo", "digest", "intent"),
    "consent": ("proposal",),
}


def mask_names(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    LogEntry = apps.get_model("admin", "LogEntry")
    for app_label, models in CONTENT_MODELS.items():
        for content_type in ContentType.objects.filter(app_label=app_label, model__in=models):
            entries = list(LogEntry.objects.filter(content_type=content_type).only("id", "object_id"))
            for entry in entries:
                entry.object_repr = f"{content_type.model} #{entry.object_id}"[:200]
            LogEntry.objects.bulk_update(entries, ["object_repr"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("staff", "0001_staff_access_record"),
        ("admin", "0003_logentry_add_action_flag_choices"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(mask_names, migrations.RunPython.noop)]
