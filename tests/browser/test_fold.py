"""The tap screen after a deal filed, with four 40-character names: every player's button
is whole on the screen above the Undo bar, without scrolling, at 320×568 and 360×640, in
English and Vietnamese. The session's name takes one line (the deal's number always
shows), the dealer's and leader's line two, the last deal's summary three; a tap on the
summary shows it whole, with the payments that come last.

Before, at 320×568 the header and the summary took 430 px and the buttons started under
the Undo bar: the scorer had to scroll to tap, with a thumb, at 1 a.m."""

import pytest
from playwright.sync_api import expect

import scoring
from tests.browser.conftest import sign_in
from tests.browser.test_covered import NAMES, SIZES
from tracker.services import deal_tap
from tracker.views.screens.words import told_apart

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG_SESSION = "Tối thứ Sáu ở nhà Thảo, bàn bốn người chơi"

WHOLE_ABOVE_UNDO = """
() => {
  const undo = document.querySelector('.thumb-bar').getBoundingClientRect().top;
  return [...document.querySelectorAll('.players .player__tap')].map(button => {
    const box = button.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= undo;
  });
}
"""

# Names whose words are all long wrap a word a line in a half-width button: six lines
# where the names above take five. Found at 320×568 by a tester: the lower buttons' last
# line went under Undo, and a thumb aiming there hit Undo instead.
LONG_WORDS = {
    "six-letter words": [
        "Nguyễn Hoàng Phương Trường Giang Khuyên",
        "Trương Nguyễn Thương Huyền Phượng Nguyên",
        "Huỳnh Trường Khương Nguyễn Phương Quỳnh",
        "Hoàng Nguyễn Trường Xuân Thương Khuê Anh",
    ],
    "one word again and again": [
        "Nguyễn Nguyễn Nguyễn Nguyễn Nguyễn Nguy",
        "Trường Trường Trường Trường Trường Trườ",
        "Phương Phương Phương Phương Phương Phươ",
        "Thương Thương Thương Thương Thương Thươ",
    ],
    "no spaces, wide letters": [
        "WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWA",
        "MMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMMB",
        "ƯỚƯỚƯỚƯỚƯỚƯỚƯỚƯỚƯỚƯỚƯỚƯỚƯỚƯỚƯỚƯỚƯỚƯỚƯỚƯC",
        "QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQD",
    ],
}

NAMES_WHOLE = """
() => [...document.querySelectorAll('.players .player__tap')].map(button => {
  const name = button.querySelector('.player__name');
  return name.scrollWidth <= name.clientWidth + 1 && name.scrollHeight <= name.clientHeight + 1;
})
"""

LINES = "(selector) => { const e = document.querySelector(selector);"
LINES += " return Math.round(e.getBoundingClientRect().height"
LINES += " / parseFloat(getComputedStyle(e).lineHeight)); }"


def after_a_filing(new_phone, make_session, actor, locale, size, names, **rules):
    """The tap screen right after deal 1 filed, at a table of `names` in a long-named
    session, on a phone of `size` in `locale`."""
    session, players = make_session(players=names, **rules)
    session.name = LONG_SESSION
    session.save(update_fields=["name"])
    deal = session.deals.get()
    for name in names[:3]:
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
    page = new_phone(locale, viewport=size)
    sign_in(page, "host", "table-of-four")
    page.goto(f"/sessions/{session.pk}/")
    return page, session, players


@pytest.mark.parametrize("locale", ["en-GB", "vi-VN"])
@pytest.mark.parametrize("size", SIZES, ids=["320x568", "360x640"])
def test_the_players_stay_above_undo_after_a_deal_with_long_names(
    new_phone, make_session, actor, circle, locale, size, screenshot
):
    page, _session, _players = after_a_filing(
        new_phone, make_session, actor, locale, size, NAMES[:4]
    )

    summary = page.locator(".last-deal__summary")
    said = told_apart(dict(enumerate(NAMES[:4])))  # long names as Undo says them
    expect(summary).to_contain_text(said[3])  # the loser pays: the end of the summary
    expect(page.locator(".tap__deal")).to_be_visible()
    assert page.evaluate("window.scrollY") == 0
    assert page.evaluate(WHOLE_ABOVE_UNDO) == [True] * 4
    assert page.evaluate(LINES, ".tap__title") == 1
    assert page.evaluate(LINES, ".tap__opening") <= 2
    assert page.evaluate(LINES, ".last-deal__summary") <= 3
    label = f"{size['width']}x{size['height']}-{locale}"
    screenshot(page, f"40-fold-{label}")

    summary.tap()

    expect(page.locator(".last-deal__more")).to_have_attribute("open", "")
    # all of it, payments included, however many lines that takes
    assert summary.evaluate("(e) => e.scrollHeight <= e.clientHeight + 1")
    screenshot(page, f"41-fold-summary-{label}")


@pytest.mark.parametrize("kind", LONG_WORDS)
@pytest.mark.parametrize("locale", ["en-GB", "vi-VN"])
def test_names_of_long_words_stay_above_undo_at_320(
    new_phone, make_session, actor, circle, locale, kind, screenshot
):
    page, _session, _players = after_a_filing(
        new_phone, make_session, actor, locale, SIZES[0], LONG_WORDS[kind]
    )

    expect(page.locator(".tap__deal")).to_be_visible()
    label = f"{kind.replace(' ', '-').replace(',', '')}-{locale}"
    screenshot(page, f"42-fold-long-words-{label}")
    assert page.evaluate("window.scrollY") == 0
    assert page.evaluate(WHOLE_ABOVE_UNDO) == [True] * 4
    # Every name whole: no letter cut off at a button's edge.
    assert page.evaluate(NAMES_WHOLE) == [True] * 4


@pytest.mark.parametrize("locale", ["en-GB", "vi-VN"])
@pytest.mark.parametrize("size", SIZES, ids=["320x568", "360x640"])
def test_got_to_get_in_folds_so_the_players_stay_above_undo(
    new_phone, make_session, actor, circle, locale, size, screenshot
):
    """Found by a tester: the Got to Get In chips, four 40-character names, took the
    players' place above Undo, and a thumb aiming at a name ticked "has not played"."""
    page, session, players = after_a_filing(
        new_phone,
        make_session,
        actor,
        locale,
        size,
        NAMES[:4],
        options=scoring.Options(got_to_get_in=True),
    )

    folded = page.locator("details.not-played")
    expect(folded).to_be_visible()
    assert folded.get_attribute("open") is None
    assert page.evaluate(WHOLE_ABOVE_UNDO) == [True] * 4
    label = f"{size['width']}x{size['height']}-{locale}"
    screenshot(page, f"43-fold-got-to-get-in-{label}")

    # Opened, a mark goes with the next tap, as before.
    page.locator(".not-played__summary").click()
    page.locator(".not-played label.chip", has_text=NAMES[1]).click()
    page.locator(".players .player__tap", has_text=NAMES[0]).click()
    expect(page.locator(".player--out")).to_have_count(1)
    assert list(session.deals.get(number=2).taps.get().not_played.all()) == [players[NAMES[1]]]


@pytest.mark.parametrize("locale", ["en-GB", "vi-VN"])
@pytest.mark.parametrize("size", SIZES, ids=["320x568", "360x640"])
def test_the_players_stay_above_undo_with_the_offline_bar_showing(
    new_phone, make_session, actor, circle, locale, size, screenshot
):
    """The offline bar at the top ("Mất kết nối — đồng bộ lần cuối lúc 20:58 · 4 đang
    chờ", two lines in Vietnamese) pushed the lower row of players under Undo at 320 px
    (session 25's review): a thumb aiming at its bottom hit Undo."""
    page, _session, _players = after_a_filing(
        new_phone, make_session, actor, locale, size, NAMES[:4]
    )
    page.context.set_offline(True)
    expect(page.locator("#offline-bar")).to_be_visible()
    page.evaluate("window.scrollTo(0, 0)")

    page.locator(".players .player__tap", has_text=NAMES[3]).click()  # waits on the phone
    bar = page.locator("#offline-bar")
    expect(bar).to_contain_text({"en-GB": "1 waiting", "vi-VN": "1 đang chờ"}[locale])
    page.evaluate("window.scrollTo(0, 0)")

    label = f"{size['width']}x{size['height']}-{locale}"
    screenshot(page, f"43-fold-offline-{label}")
    assert page.evaluate(WHOLE_ABOVE_UNDO) == [True] * 4
    # One thin line: what waits shows whole; the time last in sync gives way.
    assert page.evaluate(LINES, ".offline-bar__line") == 1
    count = page.locator(".offline-bar__count")
    assert count.evaluate("(e) => e.scrollWidth <= e.clientWidth")
