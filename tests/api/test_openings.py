"""The next deal's trading reminders in the API follow the table: a player who leaves
takes their reminders along, and a correction of the filed deal re-works them."""

import pytest

pytestmark = pytest.mark.django_db


def owed(table, deal_body):
    return [
        (table.name[r["giver"]], table.name[r["receiver"]], r["cards"], r["returns"])
        for r in deal_body["trading"]
    ]


def test_trading_player_who_left_owes_nothing(start, api):
    table = start(options={"trading": True})
    table.tap(table.deal, "Alice", "Cara", "Ben")
    following = table.deal
    assert owed(table, api.get(f"/api/deals/{following}/").json()) == [
        ("Dev", "Alice", 2, 2),
        ("Ben", "Cara", 1, 1),
    ]

    seated = [table.p[name] for name in ("Alice", "Cara", "Dev")]
    assert api.put(f"/api/sessions/{table.id}/players/", {"players": seated}).status_code == 200

    assert owed(table, api.get(f"/api/deals/{following}/").json()) == [("Dev", "Alice", 2, 2)]


def test_trading_correction_changing_the_order_reworks_the_reminders(start, api):
    table = start(options={"trading": True})
    filed = table.deal
    table.tap(filed, "Alice", "Cara", "Ben")
    following = table.deal

    response = api.post(
        f"/api/deals/{filed}/correction/",
        {"taps": [table.p[n] for n in ("Ben", "Dev", "Alice")], "reason": "Ben was first"},
    )

    assert response.status_code == 200
    body = api.get(f"/api/deals/{following}/").json()
    assert owed(table, body) == [("Cara", "Ben", 2, 2), ("Alice", "Dev", 1, 1)]
    assert (body["leader"], body["dealer"]) == (table.p["Ben"], table.p["Cara"])
