"""The API's standings are kept by what their rows are made of (`answers.ROWS`), not by
every change: a random evening of taps, undos, events, renames and seat changes, and
after each step the kept answer is held to one computed afresh with nothing kept."""

from __future__ import annotations

import random

import pytest

from tracker import answers

pytestmark = pytest.mark.django_db

NAMES = ("Alice", "Ben", "Cara", "Dev", "Eve")


def _step(rng: random.Random, table, api, *, last: bool) -> str:
    """One thing a table does; what it was (for the failure's message). End match ends
    the session, so it is the evening's last step."""
    deal = table.deal
    if last:
        assert api.post(f"/api/deals/{deal}/end/").status_code == 200
        return "end match"
    shown = api.get(f"/api/deals/{deal}/").json()
    seated = [player["player"] for player in shown["players"]]
    out = {tap["player"] for tap in shown["taps"]}
    choice = rng.random()
    if choice < 0.55:
        player = rng.choice([p for p in seated if p not in out] or seated)
        api.post(f"/api/deals/{deal}/taps/", {"player": player})
        return f"tap {table.name[player]}"
    if choice < 0.68:
        api.post(f"/api/deals/{deal}/undo/")
        return "undo"
    if choice < 0.76:
        by, owner = rng.sample(seated, 2)
        api.post(
            f"/api/deals/{deal}/events/",
            {"type": "two_beaten", "by": by, "owner": owner, "with": "bomb", "black": 1},
        )
        return "two beaten"
    if choice < 0.84:
        player = rng.choice(list(table.p.values()))
        name = f"{rng.choice(NAMES)} {rng.randrange(100)}"
        api.patch(f"/api/players/{player}/", {"name": name})
        return f"rename {player} to {name}"
    players = rng.sample(list(table.p.values()), rng.choice((3, 4, 4)))
    api.put(f"/api/sessions/{table.id}/players/", {"players": players})
    return "seats"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kept_standings_are_always_the_standings(start, api, seed):
    table = start(players=NAMES, stake="1.5")
    rng = random.Random(seed)
    path = f"/api/sessions/{table.id}/standings/"
    steps = []
    for step in range(45):
        api.get(path)  # kept at the rows' counter as they are now
        steps.append(_step(rng, table, api, last=step == 44))
        kept = api.get(path)
        answers.forget_all()
        fresh = api.get(path)
        assert kept.status_code == fresh.status_code == 200, steps
        assert kept.json() == fresh.json(), steps
