"""A tap whose answer is lost shows on the button and retries with the same key."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import sign_in
from tracker.models import IdempotencyKey, Tap

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_lost_answer_shows_not_saved_and_the_retry_applies_once(phone, table_of_four, screenshot):
    session, _players = table_of_four
    sign_in(phone, "host", "table-of-four")
    phone.goto(f"/sessions/{session.pk}/")
    sent = []

    def reach_the_server_then_drop_the_answer(route):
        sent.append(route.request.post_data)
        route.fetch()  # the server records the tap...
        route.abort("connectionreset")  # ...but the phone never hears back

    phone.route("**/tap/", reach_the_server_then_drop_the_answer)
    alice = phone.locator(".player__tap").filter(has_text="Alice")
    alice.click()
    expect(alice.locator(".retry-note")).to_be_visible()
    expect(alice).to_contain_text("not saved — tap to retry")
    screenshot(phone, "14-tap-not-saved")
    assert Tap.objects.count() == 1

    phone.unroute("**/tap/")
    alice.click()

    expect(alice.locator(".badge:not(.badge--next)")).to_have_text("1st")
    expect(phone.locator(".alert")).to_have_count(0)  # not "Alice is already out"
    assert Tap.objects.count() == 1
    assert IdempotencyKey.objects.count() == 1  # the one key, the tap applied once
    assert "key=" in sent[0]
