"""The table behind CACHES["throttle"] (Django's DatabaseCache), so throttle counters are
shared by every worker and server. `createcachetable` skips a table that already exists."""

from django.core.management import call_command
from django.db import migrations

TABLE = "throttle_cache"


def create_cache_table(apps, schema_editor):
    call_command(
        "createcachetable", TABLE, database=schema_editor.connection.alias, verbosity=0
    )


class Migration(migrations.Migration):

    dependencies = [
        ('tracker', '0002_idempotencykey'),
    ]

    operations = [
        migrations.RunPython(create_cache_table, migrations.RunPython.noop),
    ]
