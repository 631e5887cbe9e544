"""The circle leaderboard page and its CSV (SPEC 6): what it shows for a small known
circle, the date range, who may see it, and its cost in queries."""

import csv
import io
from datetime import datetime
from decimal import Decimal

import pytest
from django.urls import reverse

from tests.views.helpers import htmx, open_deal, play_deals
from tracker.models import Deal
from tracker.services import deal_end, deal_tap, share_link_create

pytestmark = pytest.mark.django_db

JANUARY = datetime.fromisoformat("2025-01-10T12:00:00+00:00")
FEBRUARY = datetime.fromisoformat("2025-02-10T12:00:00+00:00")


def url(circle):
    return reverse("circle_leaderboard", kwargs={"circle_id": circle.pk})


def csv_url(circle):
    return reverse("circle_leaderboard_csv", kwargs={"circle_id": circle.pk})


def play(session, players, orders, actor):
    for order in orders:
        deal = open_deal(session)
        for name in order:
            deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)


@pytest.fixture
def two_nights(make_session, actor):
    """A January night (Alice, Cara, Ben out; then Alice, Ben, Cara; ended) and a
    February night (Alice, Dev, Cara out): podium, loser pays 1.00 USD."""
    january, players = make_session()
    play(january, players, [("Alice", "Cara", "Ben"), ("Alice", "Ben", "Cara")], actor)
    deal_end(deal_id=open_deal(january).pk, actor=actor)
    february, _ = make_session()
    play(february, players, [("Alice", "Dev", "Cara")], actor)
    Deal.objects.filter(session=january).update(closed_at=JANUARY)
    Deal.objects.filter(session=february).update(closed_at=FEBRUARY)
    return players


def shown(response):
    return [
        (line.rank, line.row.name, line.row.points, line.row.deals, line.row.wins, line.row.net)
        for line in response.context["lines"]
    ]


def test_leaderboard_shows_the_circle_summed_over_sessions(member, circle, two_nights):
    response = member.get(url(circle))

    assert response.status_code == 200
    assert shown(response) == [
        (1, "Alice", 9, 3, 3, Decimal(3)),
        (2, "Cara", 4, 3, 0, Decimal(3)),
        (3, "Ben", 3, 3, 0, Decimal(-1)),
        (4, "Dev", 2, 3, 0, Decimal(-5)),
    ]
    assert response.context["currency"] == "USD"
    assert response.context["deal_count"] == 3
    text = response.text
    assert "+3.00" in text and "\u22125.00" in text and "USD" in text
    for heading in ("Pts", "Deals", "Podium", "Avg", "Net", "2s ±", "G ±", "Skill"):
        assert f">{heading}<" in text
    skills = [line.row.skill for line in response.context["lines"]]
    assert f">{skills[0]:.1f}<" in text  # one decimal
    assert text.count('class="chart__line series-') == 2 * 4 + 2 * 4  # two charts, legends
    assert f'href="{csv_url(circle)}"' in text


def test_the_charts_zero_line_is_svg_s_number_in_every_language(member, circle, two_nights):
    """SVG reads "154.0", not Vietnamese's "154,0": the zero line's y was localized, and
    Chromium drew no line ("Expected length") on the Vietnamese page."""
    import re

    for language in ("en", "vi"):
        text = member.get(url(circle), HTTP_ACCEPT_LANGUAGE=language).text
        lines = re.findall(r'<line class="chart__zero"[^>]*>', text)
        assert len(lines) == 2, language  # points and money
        for line in lines:
            ys = re.findall(r'y[12]="([^"]*)"', line)
            assert len(ys) == 2 and all(re.fullmatch(r"[0-9]+\.[0-9]", y) for y in ys), line


def test_head_to_head_defaults_to_the_leader(member, circle, two_nights):
    response = member.get(url(circle))

    assert response.context["chosen_name"] == "Alice"
    assert [(r.opponent, r.ahead, r.behind) for r in response.context["rivalries"]] == [
        ("Cara", 3, 0),
        ("Ben", 3, 0),
        ("Dev", 3, 0),
    ]
    assert "vs Cara" in response.text
    assert "ahead 3 · behind 0" in response.text


def test_head_to_head_for_a_chosen_player(member, circle, two_nights):
    ben = two_nights["Ben"]

    response = member.get(url(circle), {"player": ben.pk})

    assert response.context["chosen_name"] == "Ben"
    assert [(r.opponent, r.ahead, r.behind) for r in response.context["rivalries"]] == [
        ("Alice", 0, 3),
        ("Cara", 1, 2),
        ("Dev", 2, 1),
    ]


def test_htmx_picking_a_player_gets_the_head_to_head_section(member, circle, two_nights):
    ben = two_nights["Ben"]

    response = member.get(url(circle), {"player": ben.pk, "since": "2025-01-01"}, **htmx())

    assert response.status_code == 200
    assert response.text.startswith('<section id="rivals"')
    assert "Head-to-head: Ben" in response.text
    assert '<input type="hidden" name="since" value="2025-01-01">' in response.text
    assert "<table" not in response.text


def test_the_date_range_counts_both_days(member, circle, two_nights):
    response = member.get(url(circle), {"since": "2025-02-10", "until": "2025-02-10"})

    assert response.status_code == 200
    assert shown(response) == [
        (1, "Alice", 3, 1, 1, Decimal(1)),
        (2, "Dev", 2, 1, 0, Decimal(1)),
        (3, "Cara", 1, 1, 0, Decimal(1)),
        (4, "Ben", 0, 1, 0, Decimal(-3)),
    ]
    assert 'value="2025-02-10"' in response.text
    csv_link = f'href="{csv_url(circle)}?since=2025-02-10&amp;until=2025-02-10"'
    assert csv_link in response.text


def test_the_last_day_python_knows_is_no_bound(member, circle, two_nights):
    response = member.get(url(circle), {"since": "0001-01-01", "until": "9999-12-31"})

    assert response.status_code == 200
    assert response.context["deal_count"] == 3
    assert member.get(csv_url(circle), {"until": "9999-12-31"}).status_code == 200


def test_a_range_with_no_deals_says_so(member, circle, two_nights):
    response = member.get(url(circle), {"since": "2025-03-01"})

    assert response.status_code == 200
    assert response.context["lines"] == []
    assert "No deals in these dates." in response.text


@pytest.mark.parametrize(
    ("query", "why"),
    [
        ({"since": "tomorrow"}, "From: Write dates as year-month-day, like 2026-11-30."),
        ({"until": "2025-02-31"}, "To: Write dates as year-month-day, like 2026-11-30."),
        ({"since": "2025-02-10", "until": "2025-01-01"}, "The first day is after the last day."),
    ],
)
def test_bad_dates_say_so_and_show_all_time_with_400(member, circle, two_nights, query, why):
    response = member.get(url(circle), query)

    assert response.status_code == 400
    assert why in response.text
    assert "The board shows all time instead." in response.text
    assert 'role="alert"' in response.text
    assert [row[1:3] for row in shown(response)] == [
        ("Alice", 9),
        ("Cara", 4),
        ("Ben", 3),
        ("Dev", 2),
    ]


def test_mixed_currencies_show_net_a_currency_at_a_time(member, circle, make_session, actor):
    dollars, players = make_session()
    play(dollars, players, [("Alice", "Cara", "Ben")], actor)  # Dev pays 1.00 USD each
    dong, _ = make_session(stake="10000", currency="VND")
    play(dong, players, [("Alice", "Dev", "Cara")], actor)  # Ben pays 10,000 VND each

    response = member.get(url(circle))

    assert response.context["currency"] == ""
    assert response.context["currencies"] == ["USD", "VND"]
    nets = {line.row.name: line.nets for line in response.context["lines"]}
    assert nets["Dev"] == [("USD", Decimal(-3)), ("VND", Decimal(10000))]
    assert nets["Ben"] == [("USD", Decimal(1)), ("VND", Decimal(-30000))]
    assert "+10,000" in response.text and "\u221230,000" in response.text
    assert response.context["money_chart"] is None
    assert "different currencies (USD, VND)" in response.text


def test_points_only_sessions_have_no_net_and_no_money_chart(member, circle, make_session, actor):
    session, players = make_session(stake_rule="none")
    play(session, players, [("Alice", "Cara", "Ben")], actor)

    response = member.get(url(circle))

    assert response.context["currencies"] == []
    assert response.context["money_chart"] is None
    assert response.context["points_chart"] is not None
    assert "Money over the deals" not in response.text


def test_quick_ranges_mark_the_one_shown(member, circle, two_nights):
    quick = member.get(url(circle)).context["quick_ranges"]

    assert [(q.label, q.current) for q in quick] == [
        ("All time", True),
        ("This month", False),
        ("Last 30 days", False),
    ]


def test_csv_download_honours_the_range(member, circle, two_nights):
    response = member.get(csv_url(circle), {"since": "2025-02-01", "until": "2025-02-28"})

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == (
        'attachment; filename="friday-table-leaderboard-from-2025-02-01-to-2025-02-28.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    # Money compared as Decimals: the CSV's own spelling of amounts is the selector's.
    assert [(row["name"], row["points"], row["deals"], Decimal(row["net"])) for row in rows] == [
        ("Alice", "3", "1", Decimal(1)),
        ("Dev", "2", "1", Decimal(1)),
        ("Cara", "1", "1", Decimal(1)),
        ("Ben", "0", "1", Decimal(-3)),
    ]


def test_csv_of_all_time(member, circle, two_nights):
    response = member.get(csv_url(circle))

    assert response["Content-Disposition"] == 'attachment; filename="friday-table-leaderboard.csv"'
    assert response.content.decode("utf-8-sig").splitlines()[0].startswith("name,points,deals,")


def test_csv_with_a_bad_date_is_400(member, circle):
    response = member.get(csv_url(circle), {"since": "30/11/2026"})

    assert response.status_code == 400
    assert response["Content-Type"] == "text/plain; charset=utf-8"


def test_circle_page_links_to_the_leaderboard(member, circle):
    response = member.get(reverse("circle", kwargs={"circle_id": circle.pk}))

    assert f'href="{url(circle)}"' in response.text


def test_a_stranger_gets_404(stranger, circle, two_nights):
    assert stranger.get(url(circle)).status_code == 404
    assert stranger.get(csv_url(circle)).status_code == 404


def test_anonymous_goes_to_sign_in(client, circle):
    for address in (url(circle), csv_url(circle)):
        response = client.get(address)

        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_a_share_link_reaches_no_leaderboard(client, table, circle, actor):
    session, _players = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)

    assert client.get(f"/s/{link.token}/leaderboard/").status_code == 404
    assert client.get(url(circle)).status_code == 302  # the token is no sign-in


@pytest.mark.parametrize("nights", [2, 20])
def test_leaderboard_queries_do_not_grow_with_sessions(
    member, circle, make_session, actor, nights, django_assert_num_queries
):
    for _night in range(nights):
        session, players = make_session()
        play_deals(session, players, 2, actor)

    # 14: the session and the account (2), the circle (1); the selector's players (1),
    # standings totals (1), money in and out (2), 2s made and suffered (2), Guaransheeds
    # (1), deal finishes (1, also the deals' closing order), ledger lines (1), money in and
    # money out per currency (2); the player that is you (1): 15.
    with django_assert_num_queries(15):
        response = member.get(url(circle))

    assert response.context["deal_count"] == 2 * nights


def test_the_head_to_head_picker_says_long_names_apart(member, circle, make_session, actor):
    """A select shows the start of its choice: "Nguyễn Thị Minh Kh" fitted four players
    alike (session 26's review)."""
    import re

    from tests.views.test_told_apart import ALIKE

    session, players = make_session(players=ALIKE)
    play(session, players, [ALIKE[:3]], actor)

    text = member.get(url(circle)).text

    picker = re.search(r'<select id="rival-player".*?</select>', text, re.S).group(0)
    assert re.findall(r"<option[^>]*>([^<]*)</option>", picker) == [
        "Nguyễn … Lan Vy",
        "Nguyễn … Lan Hà",
        "Nguyễn … Hồng Nhung",
        "Nguyễn … Hồng Nga",
    ]


def test_a_skill_below_zero_has_a_real_minus_as_amounts_do(member, circle, two_nights):
    response = member.get(url(circle), HTTP_ACCEPT_LANGUAGE="vi")

    skills = [line.row.skill for line in response.context["lines"]]
    lowest = min(skills)
    assert lowest < 0
    shown = f"\u2212{abs(lowest):.1f}".replace(".", ",")
    assert f">{shown}<" in response.text
    assert f">-{abs(lowest):.1f}".replace(".", ",") not in response.text
