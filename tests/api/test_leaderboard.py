"""The circle leaderboard through the API (SPEC 6): `GET /api/circles/{id}/leaderboard/`
and its CSV export `GET /api/circles/{id}/leaderboard.csv`.

The known circle: two sessions of Alice, Ben, Cara and Dev (in that seat order).
  session 1, deal 1: Alice, Cara, Ben out; Dev last   (closed 2026-03-01 00:00 UTC)
  session 1, deal 2: Alice, Ben, Cara out; Dev last   (closed 2026-03-02 23:59:59 UTC)
  session 2, deal 3: Alice, Dev, Cara out; Ben last   (closed 2026-03-03 00:00 UTC)
Podium points 3/2/1/0; the loser pays each of the others the stake of 1.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest

from scoring.rating import rate
from tests.api.conftest import client_with, db_state
from tracker.models import Deal
from tracker.services import (
    api_token_create,
    deal_end,
    deal_tap,
    session_create,
    share_link_create,
    share_link_revoke,
)

pytestmark = pytest.mark.django_db

ORDERS = [
    ("Alice", "Cara", "Ben", "Dev"),
    ("Alice", "Ben", "Cara", "Dev"),
    ("Alice", "Dev", "Cara", "Ben"),
]
CLOSED = [
    datetime(2026, 3, 1, 0, 0, 0, tzinfo=UTC),
    datetime(2026, 3, 2, 23, 59, 59, tzinfo=UTC),
    datetime(2026, 3, 3, 0, 0, 0, tzinfo=UTC),
]


def play(session, players, order, actor) -> int:
    """Tap all but the last of `order` out on the session's open deal; its id."""
    deal = session.deals.get(status=Deal.Status.OPEN)
    for name in order[:-1]:
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
    return deal.pk


@pytest.fixture
def known(make_session, actor):
    """The known circle above: {"p": player ids by name, "deals": deal ids in order}."""
    first, p = make_session()
    deals = [play(first, p, ORDERS[0], actor), play(first, p, ORDERS[1], actor)]
    deal_end(deal_id=first.deals.get(status=Deal.Status.OPEN).pk, actor=actor)
    second, _ = make_session()
    deals.append(play(second, p, ORDERS[2], actor))
    for deal, closed in zip(deals, CLOSED, strict=True):
        Deal.objects.filter(pk=deal).update(closed_at=closed)
    return {
        "p": {name: player.pk for name, player in p.items()},
        "deals": deals,
        "sessions": [first, second],
    }


def url(circle, query: str = "", csv: bool = False) -> str:
    path = f"/api/circles/{circle.pk}/leaderboard{'.csv' if csv else '/'}"
    return f"{path}?{query}" if query else path


def by_name(body: dict, p: dict) -> dict:
    name = {pk: n for n, pk in p.items()}
    return {
        (name[h["player"]], name[h["opponent"]]): (h["ahead"], h["behind"])
        for h in body["head_to_head"]
    }


# --- Values -------------------------------------------------------------------------------


def test_the_known_circle_sums_both_sessions(api, circle, known):
    response = api.get(url(circle))

    assert response.status_code == 200
    body = response.json()
    p, (d1, d2, d3) = known["p"], known["deals"]
    assert (body["since"], body["until"]) == (None, None)
    assert [
        (r["name"], r["points"], r["deals"], r["wins"], r["podiums"], r["losses"], r["net"])
        for r in body["rows"]
    ] == [
        ("Alice", 9, 3, 3, 3, 0, "3.00"),
        ("Cara", 4, 3, 0, 3, 0, "3.00"),
        ("Ben", 3, 3, 0, 2, 1, "-1.00"),
        ("Dev", 2, 3, 0, 1, 2, "-5.00"),
    ]
    assert [(r["name"], r["average_place"]) for r in body["rows"]] == [
        ("Alice", "1.00"),
        ("Cara", "2.67"),
        ("Ben", "3.00"),
        ("Dev", "3.33"),
    ]
    alice = body["rows"][0]
    assert alice["player"] == p["Alice"]
    assert set(alice) == {
        "player", "name", "points", "deals", "wins", "podiums", "losses", "average_place",
        "net", "twos_beaten_made", "twos_beaten_suffered", "guaransheeds_won",
        "guaransheeds_lost", "skill", "mu", "sigma", "net_by_currency",
    }  # fmt: skip
    assert (alice["twos_beaten_made"], alice["guaransheeds_lost"]) == (0, 0)
    assert (body["currencies"], alice["net_by_currency"]) == (["USD"], {"USD": "3.00"})

    # Every pair both ways: (ahead, behind) over the three deals.
    assert by_name(body, p) == {
        ("Alice", "Ben"): (3, 0), ("Alice", "Cara"): (3, 0), ("Alice", "Dev"): (3, 0),
        ("Ben", "Alice"): (0, 3), ("Ben", "Cara"): (1, 2), ("Ben", "Dev"): (2, 1),
        ("Cara", "Alice"): (0, 3), ("Cara", "Ben"): (2, 1), ("Cara", "Dev"): (2, 1),
        ("Dev", "Alice"): (0, 3), ("Dev", "Ben"): (1, 2), ("Dev", "Cara"): (1, 2),
    }  # fmt: skip
    pairs = [(h["player"], h["opponent"]) for h in body["head_to_head"]]
    assert pairs == sorted(pairs)

    # Charts: one series a player, in row order, running totals in the order deals closed.
    assert [s["player"] for s in body["series"]] == [r["player"] for r in body["rows"]]
    series = {s["player"]: s for s in body["series"]}
    assert series[p["Alice"]]["points"] == [[d1, 3], [d2, 6], [d3, 9]]
    assert series[p["Alice"]]["net"] == [[d1, "1.00"], [d2, "2.00"], [d3, "3.00"]]
    assert series[p["Ben"]]["points"] == [[d1, 1], [d2, 3], [d3, 3]]
    assert series[p["Ben"]]["net"] == [[d1, "1.00"], [d2, "2.00"], [d3, "-1.00"]]
    assert series[p["Dev"]]["net"] == [[d1, "-3.00"], [d2, "-6.00"], [d3, "-5.00"]]


def test_skill_is_the_plackett_luce_rating_of_the_finishing_orders(api, circle, known):
    body = api.get(url(circle)).json()

    p = known["p"]
    seats = ["Alice", "Ben", "Cara", "Dev"]
    expected = rate(
        [
            ([p[name] for name in seats], {p[name]: order.index(name) + 1 for name in seats})
            for order in ORDERS
        ]
    )
    for row in body["rows"]:
        skill = expected[row["player"]]
        assert (row["mu"], row["sigma"], row["skill"]) == (
            round(skill.mu, 2),
            round(skill.sigma, 2),
            round(skill.ordinal, 2),
        )
    assert max(body["rows"], key=lambda row: row["skill"])["name"] == "Alice"


def test_a_player_without_deals_is_left_out_as_on_the_page_and_in_the_csv(
    api, client, user, circle, known
):
    """The API, the CSV and the page list the same players: those with a deal."""
    from tracker.services import player_create

    player_create(circle=circle, name="Eve")

    body = api.get(url(circle)).json()
    rows = list(
        csv.DictReader(io.StringIO(api.get(url(circle, csv=True)).content.decode("utf-8-sig")))
    )
    client.force_login(user)
    page = client.get(f"/circles/{circle.pk}/leaderboard/")

    names = ["Alice", "Cara", "Ben", "Dev"]
    assert [row["name"] for row in body["rows"]] == names
    assert [row["name"] for row in rows] == names
    assert [line.row.name for line in page.context["lines"]] == names
    assert len(body["series"]) == 4


def test_an_empty_circle_answers_its_players_with_nothing_counted(api, circle):
    body = api.get(url(circle)).json()

    assert body == {
        "since": None,
        "until": None,
        "currencies": [],
        "rows": [],
        "head_to_head": [],
        "series": [],
        "you": None,
    }


def test_another_circles_deals_never_count(api, circle, known, user, actor):
    from tracker.services import circle_create

    other = circle_create(owner=user, name="Sunday")
    session = session_create(
        circle=other, name="Sun", players=["Zed", "Yan", "Xu", "Wu"], actor=actor
    )
    for seat in session.seats.order_by("position")[:3]:
        deal_tap(deal_id=session.deals.get().pk, player_id=seat.player_id, actor=actor)

    names = [row["name"] for row in api.get(url(circle)).json()["rows"]]
    sunday = api.get(f"/api/circles/{other.pk}/leaderboard/").json()

    assert names == ["Alice", "Cara", "Ben", "Dev"]
    assert [(row["name"], row["deals"]) for row in sunday["rows"]] == [
        ("Zed", 1),
        ("Yan", 1),
        ("Xu", 1),
        ("Wu", 1),
    ]


# --- Date range ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "deals", "points"),
    [
        # since counts from 00:00 of its day; until to the end of its day. The first and
        # last days Python knows are no bound at all (there is no day after 9999-12-31).
        ("since=2026-03-01&until=2026-03-02", [0, 1], {"Alice": 6, "Ben": 3, "Cara": 3}),
        ("until=2026-03-02", [0, 1], {"Alice": 6, "Ben": 3, "Cara": 3}),
        ("since=2026-03-02&until=2026-03-02", [1], {"Alice": 3, "Ben": 2, "Cara": 1}),
        ("since=2026-03-03", [2], {"Alice": 3, "Dev": 2, "Cara": 1}),
        ("since=2026-03-02", [1, 2], {"Alice": 6, "Ben": 2, "Cara": 2, "Dev": 2}),
        ("until=2026-02-28", [], {}),
        ("since=2026-03-04", [], {}),
        (
            "since=0001-01-01&until=9999-12-31",
            [0, 1, 2],
            {"Alice": 9, "Cara": 4, "Ben": 3, "Dev": 2},
        ),
        (
            "since=0001-01-02&until=9999-12-30",
            [0, 1, 2],
            {"Alice": 9, "Cara": 4, "Ben": 3, "Dev": 2},
        ),
    ],
)
def test_since_and_until_pick_whole_days(api, circle, known, query, deals, points):
    response = api.get(url(circle, query))

    assert response.status_code == 200
    body = response.json()
    asked = dict(part.split("=") for part in query.split("&"))
    assert (body["since"], body["until"]) == (asked.get("since"), asked.get("until"))
    counted = {row["name"]: row["points"] for row in body["rows"] if row["points"]}
    assert counted == points
    assert {row["name"]: row["deals"] for row in body["rows"]} == {
        name: len(deals) for name in ("Alice", "Ben", "Cara", "Dev") if deals
    }
    ids = [known["deals"][i] for i in deals]
    alice = next((s for s in body["series"] if s["player"] == known["p"]["Alice"]), None)
    if deals:
        assert [deal for deal, _ in alice["points"]] == ids
    else:
        assert alice is None  # no deal in the range: no row, no series


def test_the_range_is_in_the_servers_time_zone(api, circle, known, settings):
    # 2026-03-02 23:59:59 UTC is 2026-03-03 06:59:59 in Ho Chi Minh City (UTC+7), and
    # 2026-03-01 00:00 UTC is 07:00 on the 1st there.
    settings.TIME_ZONE = "Asia/Ho_Chi_Minh"

    on_the_2nd = api.get(url(circle, "since=2026-03-02&until=2026-03-02")).json()
    on_the_3rd = api.get(url(circle, "since=2026-03-03&until=2026-03-03")).json()

    assert sum(row["deals"] for row in on_the_2nd["rows"]) == 0
    assert {row["name"]: row["points"] for row in on_the_3rd["rows"]} == {
        "Alice": 6, "Cara": 2, "Ben": 2, "Dev": 2,
    }  # fmt: skip


DAY = "Send a day as YYYY-MM-DD, such as 2026-03-31."


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        ("since=2026-02-30", f"since: {DAY}"),
        ("since=20260301", f"since: {DAY}"),
        ("since=2026-3-1", f"since: {DAY}"),
        ("since=2026-W09-1", f"since: {DAY}"),
        ("since=2026-03-01T00:00", f"since: {DAY}"),
        ("until=tomorrow", f"until: {DAY}"),
        ("until=", f"until: {DAY}"),
        ("until=%D9%A2%D9%A0%D9%A2%D9%A6-03-01", f"until: {DAY}"),
        (
            "since=2026-03-05&until=2026-03-01",
            "since (2026-03-05) is after until (2026-03-01); send a since on or before the until.",
        ),
    ],
)  # fmt: skip
@pytest.mark.parametrize("export", [False, True], ids=["json", "csv"])
def test_a_bad_day_is_refused_and_changes_nothing(api, circle, known, query, detail, export):
    before = db_state()

    response = api.get(url(circle, query, csv=export))

    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["detail"] == detail
    assert db_state() == before


def test_both_bad_days_are_named(api, circle):
    response = api.get(url(circle, "since=yesterday&until=2026-13-01"))

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "detail": "since: Send a day as YYYY-MM-DD, such as 2026-03-31. "
        "until: Send a day as YYYY-MM-DD, such as 2026-03-31.",
        "fields": {
            "since": ["Send a day as YYYY-MM-DD, such as 2026-03-31."],
            "until": ["Send a day as YYYY-MM-DD, such as 2026-03-31."],
        },
    }


# --- Who may see it -----------------------------------------------------------------------


@pytest.fixture
def callers(user, stranger, known, actor):
    session = known["sessions"][1]
    revoked = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    share_link_revoke(link_id=revoked.pk, actor=actor)
    links = {
        role: share_link_create(session_id=session.pk, role=role, actor=actor)
        for role in ("scorer", "viewer")
    }
    return {
        "member": f"Token {api_token_create(user=user).key}",
        "stranger": f"Token {api_token_create(user=stranger).key}",
        "scorer": f"Share {links['scorer'].token}",
        "viewer": f"Share {links['viewer'].token}",
        "revoked": f"Share {revoked.token}",
        "anonymous": None,
    }


@pytest.mark.parametrize("export", [False, True], ids=["json", "csv"])
def test_only_members_see_the_leaderboard(circle, callers, export):
    statuses = {
        role: client_with(header).get(url(circle, csv=export)).status_code
        for role, header in callers.items()
    }

    assert statuses == {
        "member": 200,
        "stranger": 404,
        "scorer": 403,
        "viewer": 403,
        "revoked": 401,
        "anonymous": 401,
    }


@pytest.mark.parametrize("export", [False, True], ids=["json", "csv"])
def test_refusals_are_json_sentences(circle, callers, export):
    stranger = client_with(callers["stranger"]).get(url(circle, csv=export))
    viewer = client_with(callers["viewer"]).get(url(circle, csv=export))
    missing = client_with(callers["member"]).get(f"/api/circles/{circle.pk + 99}/leaderboard/")

    assert stranger.json() == {"code": "not_found", "detail": f"There is no circle {circle.pk}."}
    assert viewer["Content-Type"] == "application/json"
    assert viewer.json() == {
        "code": "link_out_of_reach",
        "detail": "A share link reaches only its own session's scoring; sign in for this.",
    }
    assert missing.status_code == 404


def test_the_csv_exports_refusals_are_json_even_to_accept_text_csv(circle, callers):
    for role in ("stranger", "viewer", "anonymous"):
        response = client_with(callers[role]).get(url(circle, csv=True), HTTP_ACCEPT="text/csv")

        assert response["Content-Type"] == "application/json", role
        assert response.json()["detail"].endswith("."), role


def test_a_stranger_gets_404_before_their_bad_day_is_looked_at(circle, callers):
    response = client_with(callers["stranger"]).get(url(circle, "since=nope"))

    assert response.status_code == 404


# --- CSV ----------------------------------------------------------------------------------


def test_the_csv_export(api, circle, known):
    response = api.get(url(circle, csv=True))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="friday-table-leaderboard.csv"'
    assert response.content.startswith(b"\xef\xbb\xbf")  # a byte-order mark: Excel reads UTF-8
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == [
        "name", "points", "deals", "wins", "podiums", "losses", "average_place", "net",
        "twos_beaten_made", "twos_beaten_suffered", "guaransheeds_won", "guaransheeds_lost",
        "skill",
    ]  # fmt: skip
    json_rows = api.get(url(circle)).json()["rows"]
    assert rows[1][:8] == ["Alice", "9", "3", "3", "3", "0", "1.00", "3.00"]
    assert rows[2][:8] == ["Cara", "4", "3", "0", "3", "0", "2.67", "3.00"]
    assert [row[0] for row in rows[1:]] == [row["name"] for row in json_rows]
    assert [float(row[12]) for row in rows[1:]] == [row["skill"] for row in json_rows]


def test_the_csv_export_takes_the_same_range(api, circle, known):
    response = api.get(url(circle, "since=2026-03-03", csv=True))

    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert [(row["name"], row["points"], row["deals"]) for row in rows] == [
        ("Alice", "3", "1"),
        ("Dev", "2", "1"),
        ("Cara", "1", "1"),
        ("Ben", "0", "1"),
    ]


def test_the_csv_export_ignores_accept(api, circle, known):
    for accept in ("text/csv", "application/json", "text/html", "image/png"):
        response = api.get(url(circle, csv=True), HTTP_ACCEPT=accept)

        assert (response.status_code, response["Content-Type"]) == (
            200,
            "text/csv; charset=utf-8",
        ), accept


@pytest.mark.parametrize(
    ("name", "filename"),
    [
        ("Bàn thứ Sáu", "ban-thu-sau-leaderboard.csv"),
        ('Friday "Night" / Table', "friday-night-table-leaderboard.csv"),
        ("金曜日", None),  # nothing ASCII in it: the circle's id
    ],
)
def test_the_csv_file_name_is_the_circles_name_as_a_slug(api, circle, name, filename):
    circle.name = name
    circle.save()

    response = api.get(url(circle, csv=True))

    expected = filename or f"circle-{circle.pk}-leaderboard.csv"
    assert response["Content-Disposition"] == f'attachment; filename="{expected}"'


# --- Cost ---------------------------------------------------------------------------------


@pytest.fixture
def many_sessions(make_session, actor):
    def grow(sessions: int) -> None:
        for number in range(sessions):
            session, p = make_session()
            play(session, p, ORDERS[number % len(ORDERS)], actor)
            play(session, p, ORDERS[(number + 1) % len(ORDERS)], actor)

    return grow


@pytest.mark.parametrize("sessions", [2, 20])
def test_leaderboard_query_count_is_constant(
    api, circle, many_sessions, django_assert_num_queries, sessions
):
    many_sessions(sessions)
    # 1 token, 2 circle in reach, 3 the circle's players,
    # the standings summed: 4 points, deals, wins, podiums, losses and places,
    #   5 money received, 6 money paid, 7 2s beaten made, 8 2s beaten suffered,
    #   9 Guaransheeds,
    # 10 finishing orders of every counted deal (skill, head-to-head, charts),
    # 11 ledger lines (the money charts), 12-13 money in and out per currency,
    # 14 the player that is you
    with django_assert_num_queries(14):
        response = api.get(url(circle, "since=2000-01-01&until=2100-12-31"))

    rows = {row["name"]: row for row in response.json()["rows"]}
    assert rows["Alice"]["deals"] == 2 * sessions


def test_mixed_currencies_keep_each_net_apart(api, circle, make_session, actor):
    dollars, p = make_session()
    play(dollars, p, ["Alice", "Cara", "Ben", "Dev"], actor)  # Dev pays 1.00 USD each
    dong, _ = make_session(stake="10000", currency="VND")
    play(dong, p, ["Alice", "Dev", "Cara", "Ben"], actor)  # Ben pays 10,000 VND each

    body = api.get(url(circle)).json()
    exported = list(csv.reader(io.StringIO(api.get(url(circle, csv=True)).content.decode())))

    assert body["currencies"] == ["USD", "VND"]
    nets = {row["name"]: row["net_by_currency"] for row in body["rows"]}
    assert nets["Dev"] == {"USD": "-3.00", "VND": "10000.00"}
    assert nets["Ben"] == {"USD": "1.00", "VND": "-30000.00"}
    assert exported[0][-3:] == ["skill", "net USD", "net VND"]
    dev = next(row for row in exported if row[0] == "Dev")
    assert (dev[exported[0].index("net")], dev[-2], dev[-1]) == ("", "-3.00", "10000.00")
