"""A tap whose answer is lost waits on the phone and is sent again with the same key:
applied once (issue 12: it used to ask to be tapped again)."""

from urllib.parse import parse_qs

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import sign_in
from tracker.models import IdempotencyKey, Tap

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_lost_answer_waits_and_the_retry_applies_once(phone, table_of_four, screenshot):
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
    expect(phone.locator("#offline-bar")).to_contain_text("1 waiting")
    expect(alice.locator(".badge--waiting")).to_have_text("1st")
    expect(alice.locator(".retry-note")).to_be_hidden()  # nothing to tap again: it waits
    screenshot(phone, "14-tap-waiting")
    assert Tap.objects.count() == 1

    phone.unroute("**/tap/")

    expect(phone.locator("#offline-bar")).to_be_hidden(timeout=15_000)
    # The bar hides when the queue is empty; the server's tap screen replaces the
    # waiting badge a moment later.
    expect(alice.locator(".badge--waiting")).to_have_count(0)
    expect(alice.locator(".badge:not(.badge--next)")).to_have_text("1st")
    expect(phone.locator(".alert")).to_have_count(0)  # not "Alice is already out"
    assert Tap.objects.count() == 1
    assert IdempotencyKey.objects.count() == 1  # the one key, the tap applied once
    keys = {parse_qs(body)["key"][0] for body in sent}
    assert len(keys) == 1  # every try carried the same key
