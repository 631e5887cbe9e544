"""A tap from a page whose CSRF token went stale (signed in again elsewhere, say) is not
saved, and the page says so after loading itself again with a fresh token."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import sign_in
from tracker.models import Tap

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_tap_with_a_stale_token_reloads_the_screen_which_says_why(
    phone, table_of_four, screenshot
):
    session, _players = table_of_four
    sign_in(phone, "host", "table-of-four")
    phone.goto(f"/sessions/{session.pk}/")
    phone.evaluate(
        """document.body.setAttribute("hx-headers", '{"X-CSRFToken": "stale"}');
        document.querySelectorAll("input[name=csrfmiddlewaretoken]").forEach(function (input) {
            input.value = "stale";
        });"""
    )

    phone.locator(".player__tap").filter(has_text="Alice").click()

    expect(phone.locator("main .alert")).to_contain_text("tap once more")
    screenshot(phone, "15-stale-token-reloaded")
    assert Tap.objects.count() == 0
    phone.locator(".player__tap").filter(has_text="Alice").click()  # the fresh token
    expect(
        phone.locator(".player__tap").filter(has_text="Alice").locator(".badge:not(.badge--next)")
    ).to_have_text("1st")
    assert Tap.objects.count() == 1
