"""Changing the players between deals, and adding a forgotten event to a filed deal, as a
phone at 360×640 shows them."""

import pytest
from playwright.sync_api import expect

import scoring
from tests.browser.conftest import fits_width, sign_in
from tracker.access import Actor
from tracker.services import deal_tap, player_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def file_a_deal(session, players, user, order=("Alice", "Cara", "Ben")):
    deal = session.deals.get(status="open")
    for name in order:
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=Actor(user=user))


def test_changing_players_between_deals(phone, make_session, circle, user, screenshot):
    session, players = make_session()
    player_create(circle=circle, name="Eve")
    sign_in(phone, "host", "table-of-four")
    phone.goto(f"/sessions/{session.pk}/")
    phone.locator(".player__tap").filter(has_text="Alice").click()
    expect(phone.get_by_role("button", name="Undo Alice 1st")).to_be_visible()

    phone.locator(".menu__button").click()
    phone.get_by_role("link", name="Players").click()
    expect(phone.locator(".seating__note--locked")).to_contain_text("Deal 1 has started")
    expect(phone.get_by_role("button", name="Ben sits out")).to_be_disabled()
    screenshot(phone, "30-players-locked")

    # Back at the table: finish the deal, and the next one can be re-seated.
    phone.get_by_role("link", name="Back to the table").click()
    for name in ("Cara", "Ben"):
        phone.locator(".player__tap").filter(has_text=name).click()
        expect(phone.locator(".player__tap").filter(has_text=name)).to_be_disabled()
    expect(phone.locator(".tap__deal")).to_have_text("· Deal 2")
    phone.locator(".menu__button").click()
    phone.get_by_role("link", name="Players").click()
    seats = phone.locator(".seat-line__name")
    expect(seats).to_have_text(["Alice leads", "Ben", "Cara", "Dev deals"])
    assert fits_width(phone)
    screenshot(phone, "31-players")

    phone.get_by_role("button", name="Move Dev up a seat").click()
    expect(seats).to_have_text(["Alice leads", "Ben", "Dev deals", "Cara"])
    phone.get_by_role("button", name="Ben sits out").click()
    expect(seats).to_have_count(3)
    phone.get_by_role("button", name="Seat Eve").click()
    # A new table: the lowest card leads again; Dev, still seated, still deals.
    expect(seats).to_have_text(["Alice", "Dev deals", "Cara", "Eve"])
    phone.get_by_label("New player").fill("Fay")
    phone.get_by_role("button", name="Seat", exact=True).click()
    expect(seats).to_have_text(["Alice", "Dev deals", "Cara", "Eve", "Fay"])
    expect(phone.get_by_role("button", name="Seat Ben")).to_be_visible()
    assert fits_width(phone)
    screenshot(phone, "32-players-changed", full_page=True)

    phone.get_by_role("link", name="Back to the table").click()
    expect(phone.locator(".player__name")).to_have_text(["Alice", "Dev", "Cara", "Eve", "Fay"])
    expect(phone.locator(".tap__opening")).to_have_text("Dev deals · 3♠ leads")
    screenshot(phone, "33-tap-after-players")


def test_one_player_left_is_refused_with_the_reason(phone, make_session, screenshot):
    session, _players = make_session(players=("Alice", "Ben"))
    sign_in(phone, "host", "table-of-four")
    phone.goto(f"/sessions/{session.pk}/players/")

    phone.get_by_role("button", name="Ben sits out").click()

    expect(phone.locator(".alert")).to_have_text("Not saved: A table has 2 to 8 players.")
    expect(phone.locator(".seat-line__name")).to_have_text(["Alice", "Ben"])
    screenshot(phone, "34-players-refused")


def test_adding_a_chopped_two_and_a_hand_to_a_filed_deal(phone, make_session, user, screenshot):
    session, players = make_session(options=scoring.Options(penalties=True))
    file_a_deal(session, players, user)
    sign_in(phone, "host", "table-of-four")
    phone.goto(f"/sessions/{session.pk}/deals/1/")
    screenshot(phone, "35-deal-add-buttons", full_page=True)

    phone.locator(".action__button", has_text="2 chopped").click()
    sheet = phone.locator(".action[open] .sheet")
    expect(sheet).to_be_visible()
    sheet.locator("fieldset", has_text="Who beat it").locator("label.chip", has_text="Ben").click()
    sheet.locator("fieldset", has_text="Whose 2").locator("label.chip", has_text="Dev").click()
    sheet.locator("label.chip", has_text="Bomb").click()
    sheet.locator("fieldset", has_text="Which 2s").locator("label.chip").first.click()
    sheet.get_by_label("Why (optional)").fill("Ben's bomb was missed")
    expect(sheet.locator(".sheet__save button")).to_contain_text("Dev pays Ben 2.00 USD")
    assert fits_width(phone)
    screenshot(phone, "36-deal-add-chopped")
    sheet.locator(".sheet__save button").click()

    expect(phone.locator("ol.record")).to_contain_text("Ben bombed Dev's 2 (1 black)")
    expect(phone.locator(".ledger")).to_contain_text("Dev → Ben 2 chopped")

    phone.locator(".action__button", has_text="Hands").click()
    sheet = phone.locator(".action[open] .sheet")
    sheet.locator("fieldset", has_text="Whose hand").locator("label.chip", has_text="Dev").click()
    # Under loser pays the number of cards left pays nothing, so it is not asked.
    expect(sheet.locator("fieldset", has_text="Cards left")).to_have_count(0)
    sheet.locator("fieldset", has_text="Red 2s").locator("label.chip", has_text="1").click()
    expect(sheet.locator(".sheet__save button")).to_contain_text("Dev pays Alice 2.00 USD")
    screenshot(phone, "37-deal-add-hand")
    sheet.locator(".sheet__save button").click()

    expect(phone.locator("ol.record")).to_contain_text("Dev's unused cards: 2s: 1 red")
    expect(phone.locator(".ledger")).to_contain_text("unused red 2")
    expect(phone.locator(".block", has_text="Corrections").locator("li")).to_have_count(2)
    screenshot(phone, "38-deal-after-additions", full_page=True)


def test_a_refused_addition_says_why(phone, make_session, user, screenshot):
    session, players = make_session(options=scoring.Options(penalties=True))
    file_a_deal(session, players, user)
    sign_in(phone, "host", "table-of-four")
    phone.goto(f"/sessions/{session.pk}/deals/1/")

    # No cutup beat a 2 in this deal, so "cutup beaten" is not offered at all; a player
    # chopping their own 2 is refused, and the page says why.
    expect(phone.locator(".action__button", has_text="Cutup beaten")).to_have_count(0)
    phone.locator(".action__button", has_text="2 chopped").click()
    sheet = phone.locator(".action[open] .sheet")
    sheet.locator("fieldset", has_text="Who beat it").locator("label.chip", has_text="Ben").click()
    sheet.locator("fieldset", has_text="Whose 2").locator("label.chip", has_text="Ben").click()
    sheet.locator("label.chip", has_text="Cutup").click()
    sheet.locator("fieldset", has_text="Which 2s").locator("label.chip").first.click()
    sheet.locator(".sheet__save button").click()

    expect(phone.locator(".alert")).to_contain_text("Pick two different players.")
    expect(phone.locator(".ledger")).not_to_contain_text("2 chopped")
    screenshot(phone, "39-deal-add-refused")
