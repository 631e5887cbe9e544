"""A cutup beaten now names what beat it, a cutup or a bomb (SPEC 4.1, seed 000).

Rows stored before said nothing, and were scored as beaten by a cutup (an earning that
could be doubled again): they are marked so, which keeps every stored ledger as it is.
The constraint that asks for it comes in the next migration, in its own transaction.
"""

from django.db import migrations


def beaten_by_a_cutup(apps, schema_editor):
    DealEvent = apps.get_model("tracker", "DealEvent")
    DealEvent.objects.filter(type="cutup_beaten", beaten_with="").update(beaten_with="cutup")


class Migration(migrations.Migration):
    dependencies = [
        ("tracker", "0008_idempotency_keys_stored_with_their_write"),
    ]

    operations = [
        migrations.RunPython(beaten_by_a_cutup, migrations.RunPython.noop),
    ]
