"""The circle leaderboard on a 360x640 phone: the board, a date range, quick dates, and
no sideways scrolling of the page (the table scrolls inside its own box)."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.browser.conftest import fits_width, sign_in
from tracker.access import Actor
from tracker.models import Deal
from tracker.services import deal_tap

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAST_SEASON = [
    ("Alice", "Cara", "Ben"),
    ("Ben", "Alice", "Dev"),
    ("Cara", "Dev", "Alice"),
    ("Alice", "Ben", "Cara"),
]
TONIGHT = [  # five players: the deal files when only the loser is left holding cards
    ("Phương Anh", "Alice", "Ben", "Cara"),
    ("Dev", "Phương Anh", "Cara", "Alice"),
    ("Cara", "Alice", "Phương Anh", "Ben"),
    ("Phương Anh", "Dev", "Alice", "Ben"),
    ("Ben", "Cara", "Dev", "Phương Anh"),
]


def play(session, players, orders, actor):
    for order in orders:
        deal = session.deals.get(status=Deal.Status.OPEN)
        for name in order:
            deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)


@pytest.fixture
def two_nights(make_session, user):
    """Four deals sixty days ago, five tonight with a fifth player."""
    actor = Actor(user=user)
    old, players = make_session()
    play(old, players, LAST_SEASON, actor)
    Deal.objects.filter(session=old).update(closed_at=timezone.now() - timedelta(days=60))
    tonight, players = make_session(players=("Alice", "Ben", "Cara", "Dev", "Phương Anh"))
    play(tonight, players, TONIGHT, actor)
    return old.circle


def test_leaderboard_fits_a_phone_and_takes_a_date_range(phone, two_nights, screenshot):
    circle = two_nights
    page = phone
    sign_in(page, "host", "table-of-four")
    page.goto(f"/circles/{circle.pk}/")
    page.get_by_role("link", name="Leaderboard").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Leaderboard")
    rows = page.locator(".board__table tbody tr")
    expect(rows).to_have_count(5)
    expect(page.locator(".board__count")).to_have_text("9 deals")
    assert fits_width(page)
    screenshot(page, "60-leaderboard")
    screenshot(page, "61-leaderboard-full", full_page=True)

    # The table scrolls inside its box; the names stay in view.
    page.locator(".board").evaluate("box => { box.scrollLeft = box.scrollWidth; }")
    expect(page.locator(".board__table tbody th").first).to_be_in_viewport()
    assert fits_width(page)
    screenshot(page, "62-leaderboard-scrolled")

    today = timezone.localdate()
    page.get_by_text("Other dates").click()
    page.get_by_label("From", exact=True).fill((today - timedelta(days=70)).isoformat())
    page.get_by_label("To", exact=True).fill((today - timedelta(days=50)).isoformat())
    page.get_by_role("button", name="Show").first.click()
    expect(page.locator(".board__count")).to_have_text("4 deals")
    expect(rows).to_have_count(4)  # Phương Anh had not joined yet
    expect(page.locator(".range-pick")).to_have_attribute("open", "")  # the dates stay in view
    assert fits_width(page)

    page.get_by_role("link", name="Last 30 days").click()
    expect(page.locator(".board__count")).to_have_text("5 deals")
    expect(page.get_by_role("link", name="Last 30 days")).to_have_attribute("aria-current", "page")
    expect(page.get_by_label("From", exact=True)).to_have_value(
        (today - timedelta(days=29)).isoformat()
    )

    # A bad range says so and shows all time.
    page.get_by_text("Other dates").click()
    page.get_by_label("From", exact=True).fill(today.isoformat())
    page.get_by_label("To", exact=True).fill((today - timedelta(days=1)).isoformat())
    page.get_by_role("button", name="Show").first.click()
    expect(page.get_by_role("alert")).to_contain_text("The first day is after the last day.")
    expect(page.locator(".board__count")).to_have_text("9 deals")
    assert fits_width(page)
    screenshot(page, "63-leaderboard-bad-dates")

    page.get_by_role("link", name="All time").click()
    # Choosing a player swaps the head-to-head in place (htmx), and the address follows.
    page.get_by_label("Player", exact=True).select_option(label="Ben")
    expect(page.locator("#rivals-title")).to_have_text("Head-to-head: Ben")
    expect(page).to_have_url(re.compile(r"player=\d+"))
    expect(page.locator(".rivals__item")).to_have_count(4)
    page.locator("#points-chart-title").scroll_into_view_if_needed()
    assert fits_width(page)
    screenshot(page, "64-leaderboard-charts")


def test_leaderboard_light_and_vietnamese_fit_a_phone(phone, two_nights, screenshot):
    circle = two_nights
    page = phone
    sign_in(page, "host", "table-of-four")
    page.goto(f"/circles/{circle.pk}/leaderboard/")
    page.get_by_role("button", name="Light").click()
    expect(page.locator("html")).to_have_class("theme-light")
    page.locator("#points-chart-title").scroll_into_view_if_needed()
    screenshot(page, "65-leaderboard-light-charts")

    page.get_by_role("button", name="Tiếng Việt").click()
    expect(page.locator("html")).to_have_attribute("lang", "vi")
    expect(page.locator(".board__table thead")).to_contain_text("Người chơi")
    page.evaluate("window.scrollTo(0, 0)")
    assert fits_width(page)
    screenshot(page, "66-leaderboard-vi")
    screenshot(page, "67-leaderboard-vi-full", full_page=True)


# Four names a Vietnamese table really has, told apart only by their last words.
ALIKE = [
    "Nguyễn Thị Minh Khai Phương Hồng Nhung",
    "Nguyễn Thị Minh Khai Phương Hồng Nga",
    "Nguyễn Thị Minh Khai Phương Kim Chi",
    "Nguyễn Thị Minh Khai Phương Kim Anh",
]

# For each element matched: whether any of its text is cut off (an ellipsis, or text past
# its box), and its text.
WHOLE = """(selector) => [...document.querySelectorAll(selector)].map((cell) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    const edge = cell.getBoundingClientRect();
    return {
        cut: cell.scrollWidth > cell.clientWidth
            || [...range.getClientRects()].some((box) => box.right > edge.right + 0.5),
        text: cell.textContent.split(/\\s+/).filter(Boolean).join(" "),
    };
})"""


@pytest.mark.parametrize("locale", ["vi-VN", "en-GB"])
def test_the_board_and_the_charts_show_names_that_start_alike_whole(
    new_phone, make_session, user, screenshot, locale
):
    """At 320 px the board cut every name to "Nguyễn Th…" and the charts' legends to
    "Nguyễn Thị Minh Khai Phươ…": four players of one family read the same, and no line
    could be matched to its player (session 25's review). Each shows whole, wrapped."""
    session, players = make_session(players=ALIKE, stake="10000", currency="VND")
    play(session, players, [tuple(ALIKE[:3]), tuple(ALIKE[1:])], Actor(user=user))
    page = new_phone(locale=locale)
    page.set_viewport_size({"width": 320, "height": 568})
    sign_in(page, "host", "table-of-four")
    page.goto(f"/circles/{session.circle_id}/leaderboard/")

    for selector in (".board__table tbody .board__name", ".legend__name"):
        names = page.evaluate(WHOLE, selector)
        assert [name["cut"] for name in names] == [False] * len(names), (selector, names)
        assert {name["text"] for name in names} == set(ALIKE), (selector, names)
    assert fits_width(page)
    page.locator(".board__table").scroll_into_view_if_needed()
    screenshot(page, f"leaderboard-names-whole-{locale}")
    page.locator(".legend").first.scroll_into_view_if_needed()
    screenshot(page, f"leaderboard-legend-whole-{locale}")
