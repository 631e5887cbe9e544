"""The end-of-night summary in a real browser: shared through the Web Share API where the
phone has it, copied where it has not; at 320×568 and 360×640 in English and Vietnamese
with 40-character names."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import fits_width, sign_in
from tests.browser.test_settle import LONG, NAME_LINES
from tracker.services import deal_tap, share_link_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FAKE_SHARE = """
window.__shared = [];
navigator.share = function (data) { window.__shared.push(data); return Promise.resolve(); };
"""


@pytest.fixture
def night(make_session, actor):
    def make(names=("Alice", "Ben", "Cara", "Dev")):
        session, players = make_session(players=list(names))
        for order in ((0, 2, 1), (3, 0, 2)):
            deal = session.deals.get(status="open")
            for index in order:
                deal_tap(deal_id=deal.pk, player_id=players[names[index]].pk, actor=actor)
        share_link_create(session_id=session.pk, role="viewer", actor=actor)
        return session

    return make


def test_without_web_share_the_text_is_copied(new_phone, night, screenshot):
    session = night()
    page = new_phone()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    sign_in(page, "host", "table-of-four")
    page.goto(f"/sessions/{session.pk}/summary/")

    expect(page.get_by_role("button", name="Share")).to_be_hidden()
    page.get_by_role("button", name="Copy the text").click()
    expect(page.get_by_text("Copied ✓")).to_be_visible()

    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == page.locator("#summary-text").text_content()
    assert copied.splitlines()[0] == "Friday · after 2 deals"
    assert "/s/" in copied.splitlines()[-1]  # the viewer link, to follow the night
    screenshot(page, "summary-01-copied", full_page=True)


def test_with_web_share_the_phone_shares_the_text(new_phone, night):
    session = night()
    page = new_phone()
    page.add_init_script(FAKE_SHARE)
    sign_in(page, "host", "table-of-four")
    page.goto(f"/sessions/{session.pk}/summary/")

    expect(page.get_by_role("button", name="Copy the text")).to_be_hidden()
    page.get_by_role("button", name="Share").click()

    shared = page.evaluate("window.__shared")
    assert [item["title"] for item in shared] == ["Friday"]
    assert shared[0]["text"] == page.locator("#summary-text").text_content()


@pytest.mark.parametrize("size", [(320, 568), (360, 640)], ids=["320", "360"])
@pytest.mark.parametrize("locale", ["en-GB", "vi-VN"])
def test_the_summary_fits_a_phone(new_phone, night, screenshot, size, locale):
    session = night(LONG)
    page = new_phone(locale=locale)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    sign_in(page, "host", "table-of-four")

    page.goto(f"/sessions/{session.pk}/summary/")

    assert fits_width(page)
    screenshot(page, f"summary-10-{locale[:2]}-{size[0]}", full_page=True)


@pytest.mark.parametrize("locale", ["en-GB", "vi-VN"])
def test_the_summary_s_points_say_the_currency_once_and_keep_a_long_name_short(
    new_phone, night, screenshot, locale
):
    """At 320 px "+120.000 VND" beside each name wrapped a 40-character name to six lines
    (session 25's review). The heading says the currency once, as "Still owed" and the
    standings do, and the amounts are the numbers alone."""
    session = night(LONG)
    page = new_phone(locale=locale)
    page.set_viewport_size({"width": 320, "height": 568})
    sign_in(page, "host", "table-of-four")
    page.goto(f"/sessions/{session.pk}/summary/")

    points = page.locator("table.summary-points")
    expect(points.locator("thead")).to_contain_text(session.currency)
    expect(points.locator("tbody .amount__currency").first).to_be_hidden()
    points.scroll_into_view_if_needed()
    screenshot(page, f"summary-11-points-{locale[:2]}-320")
    assert max(page.evaluate(NAME_LINES, "table.summary-points tbody .name")) <= 3
    # The way on to settle up is a button a thumb finds, not a line of text 19 px tall.
    settle = page.locator("#owed-title ~ p a")
    assert settle.evaluate("(e) => e.getBoundingClientRect().height") >= 48
