"""Downloads from the pages: a session's ledger (CSV) and the whole session (JSON) for
whoever sees the session; the circle's backup for its members only."""

import csv
import io
import json

import pytest
from django.urls import reverse

from tests.views.helpers import play_deals
from tracker.services import players_seat, share_link_create

pytestmark = pytest.mark.django_db


def test_the_ledger_downloads_as_a_csv_a_spreadsheet_opens_safely(member, table, actor):
    session, players = table
    players_seat(session_id=session.pk, players=["Alice", "Ben", "Cara", "=1+2"], actor=actor)
    deal = session.deals.get(status="open")
    from tracker.services import deal_tap

    for name in ("Alice", "Cara", "Ben"):
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)

    response = member.get(reverse("member:ledger_csv", kwargs={"session_id": session.pk}))

    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="friday-ledger-')
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert [row[1:4] for row in rows[1:]] == [
        ["'=1+2", "Alice", "1.00"],
        ["'=1+2", "Ben", "1.00"],
        ["'=1+2", "Cara", "1.00"],
    ]


def test_a_viewer_link_downloads_the_session_without_account_names(client, table, actor):
    session, players = table
    play_deals(session, players, 2, actor)
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    ledger = client.get(f"/s/{link.token}/ledger.csv")
    document = client.get(f"/s/{link.token}/session.json")

    assert (ledger.status_code, document.status_code) == (200, 200)
    assert document["Content-Disposition"].startswith('attachment; filename="friday-session-')
    data = json.loads(document.content)
    assert data["format"] == "squarescores.session"
    assert len(data["session"]["deals"]) == 3
    assert "host" not in document.content.decode()
    assert link.token not in document.content.decode()


def test_a_member_downloads_the_session_with_account_names(member, table, actor):
    session, players = table
    play_deals(session, players, 1, actor)

    document = member.get(reverse("member:session_json", kwargs={"session_id": session.pk}))

    data = json.loads(document.content)
    assert data["session"]["deals"][0]["taps"][0]["recorded_by"] == "host"


def test_the_circle_backup_is_for_members_only(member, table, circle, actor):
    url = reverse("circle_backup", kwargs={"circle_id": circle.pk})

    response = member.get(url)

    assert response["Content-Disposition"].startswith('attachment; filename="friday-table-backup-')
    assert json.loads(response.content)["format"] == "squarescores.circle"


def test_the_circle_backup_is_refused_to_strangers_and_anonymous(client, stranger, circle):
    url = reverse("circle_backup", kwargs={"circle_id": circle.pk})

    assert stranger.get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 302


def test_the_summary_and_circle_pages_link_to_the_downloads(member, table, circle):
    session, _players = table

    summary = member.get(reverse("member:summary", kwargs={"session_id": session.pk}))
    circle_page = member.get(reverse("circle", kwargs={"circle_id": circle.pk}))

    assert f'href="/sessions/{session.pk}/ledger.csv"' in summary.text
    assert f'href="/sessions/{session.pk}/session.json"' in summary.text
    assert f'href="/circles/{circle.pk}/backup.json"' in circle_page.text
