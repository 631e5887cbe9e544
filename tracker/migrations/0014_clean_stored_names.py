"""Names stored before names were cleaned (NFKC, no invisible or control characters, one
space at a time) are cleaned now, so they show and compare as new names do.

A player's name that cleans to nothing becomes "Player <id>"; one that would then be the
same name as another player of its circle keeps its id beside it ("Dupe (17)").
"""

import unicodedata

from django.db import migrations

INVISIBLE = frozenset({"Cf", "Cc", "Cs", "Co", "Cn"})


def normal(name):
    name = unicodedata.normalize("NFKC", name)
    name = "".join(
        " " if char.isspace() else char
        for char in name
        if char.isspace() or unicodedata.category(char) not in INVISIBLE
    )
    return " ".join(name.split())


def clean_names(apps, schema_editor):
    Player = apps.get_model("tracker", "Player")
    changed = []
    players = list(Player.objects.order_by("circle_id", "pk"))
    seen = {}
    for player in players:
        cleaned = normal(player.name)[:40] or f"Player {player.pk}"
        key = cleaned.casefold()
        mine = seen.setdefault(player.circle_id, set())
        if key in mine:
            cleaned = f"{cleaned[:30]} ({player.pk})"
            key = cleaned.casefold()
        mine.add(key)
        if cleaned != player.name:
            player.name = cleaned
            changed.append(player)
    # Two passes, so a rename never meets the unique constraint halfway.
    for player in changed:
        Player.objects.filter(pk=player.pk).update(name=f"\x01{player.pk}")
    for player in changed:
        Player.objects.filter(pk=player.pk).update(name=player.name)
    for model, longest in (("Circle", 80), ("Session", 80)):
        for row in apps.get_model("tracker", model).objects.all().only("pk", "name"):
            cleaned = normal(row.name)[:longest] or row.name
            if cleaned != row.name:
                type(row).objects.filter(pk=row.pk).update(name=cleaned)


class Migration(migrations.Migration):
    dependencies = [
        ("tracker", "0013_api_tokens"),
    ]

    operations = [
        migrations.RunPython(clean_names, migrations.RunPython.noop),
    ]
