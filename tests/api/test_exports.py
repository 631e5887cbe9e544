"""Take your data with you, through the API: a session's ledger as CSV, the whole session
as JSON, the circle's backup."""

import csv
import io

import pytest

from tests.api.conftest import client_with
from tracker.services import share_link_create

pytestmark = pytest.mark.django_db


def test_the_ledger_csv_has_a_row_per_ledger_line(start, api):
    table = start(currency="EUR", stake="0.50")
    table.tap(table.deal, "Alice", "Cara", "Ben")
    table.tap(table.deal, "Ben", "Alice", "Dev")

    response = api.get(f"/api/sessions/{table.id}/ledger.csv")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="friday-ledger-')
    assert response.content.startswith(b"\xef\xbb\xbf")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == ["deal", "from", "to", "amount", "currency", "reason", "time"]
    assert [row[:6] for row in rows[1:]] == [
        ["1", "Dev", "Alice", "0.50", "EUR", "loser_pays"],
        ["1", "Dev", "Ben", "0.50", "EUR", "loser_pays"],
        ["1", "Dev", "Cara", "0.50", "EUR", "loser_pays"],
        ["2", "Cara", "Alice", "0.50", "EUR", "loser_pays"],
        ["2", "Cara", "Ben", "0.50", "EUR", "loser_pays"],
        ["2", "Cara", "Dev", "0.50", "EUR", "loser_pays"],
    ]
    assert all(row[6].endswith("+00:00") for row in rows[1:])


@pytest.mark.parametrize("deals", [1, 6])
def test_the_ledger_csv_costs_the_same_however_many_deals(
    start, api, django_assert_num_queries, deals
):
    table = start()
    for _ in range(deals):
        table.tap(table.deal, "Alice", "Cara", "Ben")

    # 1 token, 2 session in reach, 3 the ledger lines with their deals and players
    with django_assert_num_queries(3):
        response = api.get(f"/api/sessions/{table.id}/ledger.csv")
    assert len(response.content.decode("utf-8-sig").splitlines()) == 1 + 3 * deals


def test_the_session_export_names_accounts_for_members_only(start, api, actor):
    table = start()
    table.tap(table.deal, "Alice", "Cara", "Ben")
    viewer = share_link_create(session_id=table.id, role="viewer", actor=actor)

    by_member = api.get(f"/api/sessions/{table.id}/export/").json()
    by_viewer = client_with(f"Share {viewer.token}").get(f"/api/sessions/{table.id}/export/")

    assert (by_member["format"], by_member["version"], by_member["circle"]) == (
        "squarescores.session",
        1,
        "Friday table",
    )
    first = by_member["session"]["deals"][0]
    assert [tap["player"] for tap in first["taps"]] == ["Alice", "Cara", "Ben"]
    assert first["taps"][0]["recorded_by"] == "host"
    assert by_viewer.status_code == 200
    assert by_viewer.json()["session"]["deals"][0]["taps"][0]["recorded_by"] is None
    assert viewer.token not in by_viewer.content.decode()
    assert "token" not in by_member["session"]["share_links"][0]


def test_the_circle_export_is_the_backup_document(start, api):
    table = start()
    table.tap(table.deal, "Alice", "Cara", "Ben")

    body = api.get(f"/api/circles/{table.session['circle']}/export/").json()

    assert (body["format"], body["circle"]["name"]) == ("squarescores.circle", "Friday table")
    assert [session["name"] for session in body["sessions"]] == ["Friday"]


@pytest.mark.parametrize("deals", [1, 6])
def test_the_session_export_costs_the_same_however_many_deals(
    start, api, django_assert_num_queries, deals
):
    table = start()
    for _ in range(deals):
        table.tap(table.deal, "Alice", "Cara", "Ben")

    # 1 token, 2 session in reach, 3 the circle's players, 4 accounts, 5 the session,
    # 6 seats, 7 share links, 8 payments, 9 deals, 10 their players, 11 corrections,
    # 12 taps, 13 their not-played marks, 14 events, 15 ledger lines
    with django_assert_num_queries(15):
        body = api.get(f"/api/sessions/{table.id}/export/").json()
    assert len(body["session"]["deals"]) == deals + 1
