from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("consent", "0001_initial")]

    operations = [
        migrations.AddIndex(
            model_name="proposal",
            index=models.Index(fields=["status", "expires_at"], name="proposal_status_expires"),
        ),
    ]
