"""Every CSV the app writes opens safely in a spreadsheet (tracker.spreadsheets): no cell
runs as a formula, and a byte-order mark makes Excel read UTF-8."""

import csv
import io
from decimal import Decimal

import pytest

from tracker.spreadsheets import BOM, cell, csv_text


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ('=HYPERLINK("http://evil","x")', '\'=HYPERLINK("http://evil","x")'),
        ("+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1:A2)", "'@SUM(A1:A2)"),
        ("\tTab", "'\tTab"),
        ("\rReturn", "'\rReturn"),
        ("Nguyễn Thị Minh Khai", "Nguyễn Thị Minh Khai"),
        ("Ben = Cara", "Ben = Cara"),
        ("-3.00", "-3.00"),  # a debt, not a formula
        ("+8.00", "+8.00"),
        (Decimal("-1.50"), Decimal("-1.50")),
        (-4, -4),
        (None, ""),
    ],
)
def test_a_cell_a_spreadsheet_would_run_is_written_as_text(value, written):
    assert cell(value) == written


def test_csv_text_starts_with_a_byte_order_mark_and_escapes_every_cell():
    text = csv_text(["name", "net"], [["=1+1", "-3.00"], ["Đặng", "2.50"]])

    assert text.startswith(BOM)
    assert list(csv.reader(io.StringIO(text.removeprefix(BOM)))) == [
        ["name", "net"],
        ["'=1+1", "-3.00"],
        ["Đặng", "2.50"],
    ]
    assert text.encode("utf-8").startswith(b"\xef\xbb\xbf")


@pytest.mark.django_db
def test_a_name_added_through_a_scorer_link_never_reaches_the_leaderboard_as_a_formula(
    circle, actor, client, user
):
    from tracker.access import Actor
    from tracker.services import deal_tap, players_seat, session_create, share_link_create

    session = session_create(circle=circle, name="Friday", players=["Alice", "Ben"], actor=actor)
    scorer = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    trap = '=HYPERLINK("http://ev.il","Hi")'  # 29 characters: a name fits 40
    players_seat(session_id=session.pk, players=["Alice", "Ben", trap], actor=Actor(link=scorer))
    deal = session.deals.get(status="open")
    for player in session.seats.order_by("position"):
        deal_tap(deal_id=deal.pk, player_id=player.player_id, actor=actor)
    client.force_login(user)

    text = client.get(f"/circles/{circle.pk}/leaderboard.csv").content.decode("utf-8-sig")

    names = [row["name"] for row in csv.DictReader(io.StringIO(text))]
    assert sorted(names) == sorted(["Alice", "Ben", "'" + trap])
