"""Idempotency keys are stored with their write's answer, in its transaction (no more
`running` keys); writes are counted per caller in `WriteCount`, one statement a write.

On PostgreSQL the counter table is UNLOGGED: counting never waits for the disk, and a
crash only forgets counts."""

from django.db import migrations, models


def forget_running_keys(apps, schema_editor):
    # A `running` key belonged to a request that never finished: nothing of it committed.
    apps.get_model("tracker", "IdempotencyKey").objects.filter(state="running").delete()


def counter_unlogged(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute('ALTER TABLE "tracker_writecount" SET UNLOGGED')


class Migration(migrations.Migration):

    dependencies = [
        ("tracker", "0007_session_version"),
    ]

    operations = [
        migrations.RunPython(forget_running_keys, migrations.RunPython.noop),
        migrations.RemoveField(model_name="idempotencykey", name="state"),
        migrations.RemoveField(model_name="idempotencykey", name="started_at"),
        migrations.RemoveField(model_name="idempotencykey", name="finished_at"),
        migrations.AlterField(
            model_name="idempotencykey",
            name="status_code",
            field=models.PositiveSmallIntegerField(),
        ),
        migrations.CreateModel(
            name="WriteCount",
            fields=[
                ("scope", models.CharField(max_length=60, primary_key=True, serialize=False)),
                (
                    "period_start",
                    models.BigIntegerField(help_text="Seconds since the epoch ÷ the period."),
                ),
                ("count", models.PositiveIntegerField()),
            ],
        ),
        migrations.RunPython(counter_unlogged, migrations.RunPython.noop),
    ]
