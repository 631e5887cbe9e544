"""A whole evening on a 360×640 phone: sign up, start a table, tap, undo, settle up."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import fits_width

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sign_up_tap_a_deal_undo_and_settle_up(phone, screenshot):
    page = phone
    page.goto("/")
    screenshot(page, "01-home")
    page.get_by_role("link", name="Sign up").first.click()
    page.locator("input[name=username]").fill("host")
    page.locator("input[name=password1]").fill("tien-len-table-42")
    page.locator("input[name=password2]").fill("tien-len-table-42")
    screenshot(page, "02-sign-up")
    page.locator("form.form button[type=submit]").click()

    # A new account lands on a new session for its own circle: name the four players.
    expect(page.get_by_role("heading", name="New session")).to_be_visible()
    for slot, name in enumerate(["Alice", "Ben", "Cara", "Dev"], start=1):
        page.get_by_label(f"New player {slot}").fill(name)
    screenshot(page, "03-new-session")
    page.get_by_role("button", name="Start the session").click()

    # The tap screen: deal 1, nobody knows who holds the 3♠.
    expect(page.locator(".tap__deal")).to_have_text("· Deal 1")
    expect(page.locator(".tap__opening")).to_contain_text("3♠ leads")
    assert fits_width(page)
    screenshot(page, "04-tap-deal-1")

    players = page.locator(".player__tap")
    players.filter(has_text="Alice").click()
    # The badge that counts is the server's (the "next place" one only shows mid-request).
    expect(players.filter(has_text="Alice").locator(".badge:not(.badge--next)")).to_have_text("1st")
    expect(players.filter(has_text="Alice")).to_be_disabled()
    expect(page.locator(".button--undo")).to_contain_text("Undo Alice 1st")
    players.filter(has_text="Cara").click()
    expect(players.filter(has_text="Cara").locator(".badge:not(.badge--next)")).to_have_text("2nd")
    screenshot(page, "05-tap-two-out")
    players.filter(has_text="Ben").click()

    # The third tap files the deal: deal 2 is on screen, with the last one summed up.
    expect(page.locator(".tap__deal")).to_have_text("· Deal 2")
    summary = page.locator(".last-deal__summary")
    expect(summary).to_have_text(
        "Deal 1: Alice 3 · Cara 2 · Ben 1 · Dev pays 1.00 USD each (loser pays)"
    )
    expect(page.locator(".tap__opening")).to_have_text("Dev deals · Alice leads")
    expect(page.locator(".button--undo")).to_contain_text("Undo deal 1: Ben 3rd")
    screenshot(page, "06-tap-deal-2")

    # Undo reaches back into deal 1 once asked; tapping Ben again files it once more.
    page.locator(".button--undo").click()
    confirm = page.locator(".undo-confirm[open] .sheet")
    expect(confirm).to_contain_text("Re-open deal 1?")
    screenshot(page, "06b-undo-reopen")
    confirm.get_by_role("button", name="Undo deal 1: Ben 3rd").click()
    expect(page.locator(".tap__deal")).to_have_text("· Deal 1")
    expect(players.filter(has_text="Ben")).to_be_enabled()
    players.filter(has_text="Ben").click()
    expect(page.locator(".tap__deal")).to_have_text("· Deal 2")

    # A 2 chopped on deal 2, from the bottom sheet.
    page.locator(".action__button", has_text="2 chopped").click()
    sheet = page.locator(".action[open] .sheet")
    screenshot(page, "07-sheet-2-chopped")
    sheet.locator("label.chip", has_text="Ben").first.click()
    sheet.locator("fieldset", has_text="Whose 2").locator("label.chip", has_text="Alice").click()
    sheet.locator("fieldset", has_text="Beaten with").locator(
        "label.chip", has_text="Cutup"
    ).click()
    sheet.locator("fieldset", has_text="Which 2s").locator("label.chip").first.click()
    # Without the 2s-and-bombs option a chop costs nothing, and Save says so.
    expect(sheet.locator(".sheet__save button")).to_contain_text("no money moves now")
    sheet.locator(".sheet__save button").click()
    expect(page.locator(".deal-log")).to_contain_text(
        "Ben chopped Alice's 2 with a cutup (1 black)"
    )

    page.locator(".menu__button").click()
    page.get_by_role("link", name="Standings").click()
    expect(page.locator("#standings")).to_contain_text("after 1 deal")
    assert fits_width(page)
    screenshot(page, "08-standings")

    page.get_by_role("link", name="Deals").first.click()
    screenshot(page, "09-deals")

    page.get_by_role("link", name="Settle up").first.click()
    transfers = page.locator(".transfer")
    expect(transfers).to_have_count(3)
    screenshot(page, "10-settle-up")
    assert re.search(r"Dev → Alice", transfers.first.inner_text())

    # One tap marks a payment; the paid line stays, struck through, and the rest stay put.
    transfers.first.get_by_role("button", name="Mark paid").click()
    expect(page.locator(".transfer--paid")).to_have_count(1)
    expect(page.locator(".transfer--paid del").first).to_contain_text("Dev → Alice")
    expect(page.locator(".transfer")).to_have_count(3)
    screenshot(page, "11-settle-up-paid")
