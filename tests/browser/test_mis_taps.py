"""What a tired thumb gets wrong on the tap screen, and the screen forgives.

A double tap on the tap that fills the podium: the first tap files the deal, the screen
draws the next one, and the second tap (a quarter of a second later, at the same spot)
met a player of the new deal and put them out first before the cards were even dealt.
The screen now holds the players' buttons a moment after it shows a new deal number,
online, offline, and when another phone filed it."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import sign_in, worker_keeps
from tracker.models import Tap

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SMALL_PHONE = {"width": 320, "height": 568}
DOUBLE_TAP_MS = 250  # a thumb's double tap, or "did it take?" tapped again


def players(page):
    return page.locator(".players:not(.players--question) .player__tap")


def double_tap(page, button):
    """Tap `button`, and tap the same spot of the screen again a moment later (whatever
    is there by then)."""
    expect(button).to_be_enabled()
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.touchscreen.tap(x, y)
    page.wait_for_timeout(DOUBLE_TAP_MS)
    page.touchscreen.tap(x, y)


def test_a_double_tap_that_files_the_deal_changes_nothing_on_the_next(
    new_phone, table_of_four, screenshot
):
    """The filed deal's summary appears above the players and pushes them down: the
    second tap meets whatever is there now (at 320 px in Vietnamese, the summary, which it
    opened; at 360 px, a player). Neither may happen."""
    session, _players = table_of_four
    page = new_phone("vi", viewport=SMALL_PHONE)
    sign_in(page, "host", "table-of-four")
    page.goto(f"/sessions/{session.pk}/")
    for name in ("Alice", "Cara"):
        players(page).filter(has_text=name).click()
        expect(players(page).filter(has_text=name)).to_be_disabled()

    double_tap(page, players(page).filter(has_text="Ben"))  # the first tap files deal 1

    expect(page.locator(".tap__deal")).to_have_text("· Ván 2")
    screenshot(page, "74-vi-tap-next-deal-settling")
    page.wait_for_timeout(1500)
    assert not Tap.objects.filter(deal__session=session, deal__number=2).exists()
    expect(page.locator("#tap-screen details[open]")).to_have_count(0)
    expect(players(page).filter(has_text="Ben")).to_be_enabled()
    expect(page.locator(".button--undo")).to_contain_text("ván 1: Ben")  # Undo names the filing

    # A moment later the screen takes taps as before.
    players(page).filter(has_text="Dev").click()
    # Saved once Undo names it (every button is disabled while the tap is on its way).
    expect(page.locator(".button--undo")).to_contain_text("Dev")
    assert list(
        Tap.objects.filter(deal__session=session, deal__number=2).values_list(
            "player__name", flat=True
        )
    ) == ["Dev"]


def test_offline_a_double_tap_that_files_the_deal_queues_one_tap(offline_phone, table_of_four):
    session, _players = table_of_four
    page = offline_phone(viewport=SMALL_PHONE)
    sign_in(page, "host", "table-of-four")
    worker_keeps(page, f"/sessions/{session.pk}/")
    page.context.set_offline(True)
    for name in ("Alice", "Cara"):
        players(page).filter(has_text=name).click()
        expect(players(page).filter(has_text=name)).to_be_disabled()

    double_tap(page, players(page).filter(has_text="Ben"))

    expect(page.locator(".tap__deal")).to_have_text("· Deal 2")
    page.wait_for_timeout(1500)
    expect(page.locator("#offline-bar")).to_contain_text("3 waiting")
    expect(players(page).filter(has_text="Ben")).to_be_enabled()

    page.context.set_offline(False)
    expect(page.locator("#offline-bar")).to_be_hidden(timeout=10_000)
    assert session.deals.get(number=1).status == "filed"
    assert not Tap.objects.filter(deal__session=session, deal__number=2).exists()


def test_a_deal_filed_on_another_phone_holds_this_ones_buttons_a_moment(
    new_phone, table_of_four, user, actor
):
    """The screen follows the scorer's phone; a tap aimed at the old deal as the new one
    arrives is not taken as the new deal's first."""
    from tracker.services import deal_tap

    session, seats = table_of_four
    page = new_phone()
    sign_in(page, "host", "table-of-four")
    page.goto(f"/sessions/{session.pk}/")
    expect(page.locator(".tap__deal")).to_have_text("· Deal 1")
    deal = session.deals.get()
    for name in ("Alice", "Cara", "Ben"):
        deal_tap(deal_id=deal.pk, player_id=seats[name].pk, actor=actor)

    expect(page.locator(".tap__deal")).to_have_text("· Deal 2", timeout=4000)
    box = players(page).filter(has_text="Ben").bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_timeout(1500)
    assert not Tap.objects.filter(deal__session=session, deal__number=2).exists()
