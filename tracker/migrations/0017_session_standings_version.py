"""A session's `standings_version`: moves on only when its standings' rows may have
changed, so live standings pages compare their rows only then (`tracker.views.live`).
Nothing to fill in: a page that finds 0 compares its rows once, as at any first look."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tracker", "0016_player_payment_details"),
    ]

    operations = [
        migrations.AddField(
            model_name="session",
            name="standings_version",
            field=models.PositiveBigIntegerField(default=0),
        ),
    ]
