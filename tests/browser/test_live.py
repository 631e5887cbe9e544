"""Live standings on a second phone, and what a viewer link may do."""

import time

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import sign_in
from tracker.access import Actor
from tracker.services import deal_tap, session_end, share_link_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_tap_on_one_phone_shows_on_the_other_standings_within_two_seconds(
    new_phone, table_of_four, user, screenshot
):
    session, _players = table_of_four
    scorer = new_phone()
    sign_in(scorer, "host", "table-of-four")
    scorer.goto(f"/sessions/{session.pk}/")
    link = share_link_create(session_id=session.pk, role="viewer", actor=Actor(user=user))
    watcher = new_phone()
    asked = []
    watcher.on(
        "request",
        lambda request: asked.append(request.url) if "/standings/" in request.url else None,
    )
    watcher.goto(f"/s/{link.token}/standings/")
    alice_row = watcher.locator("#standings tbody", has_text="Alice").first
    expect(alice_row.locator("td.strong")).to_have_text("0")

    buttons = scorer.locator(".player__tap")
    for name in ("Alice", "Cara"):
        buttons.filter(has_text=name).click()
        expect(buttons.filter(has_text=name)).to_be_disabled()
    buttons.filter(has_text="Ben").click()  # the third tap files deal 1
    expect(scorer.locator(".tap__deal")).to_have_text("· Deal 2")
    filed = time.monotonic()

    # No reload and no fetch on the watcher: the stream sends the new standings, and the
    # changed rows flash.
    expect(alice_row.locator("td.strong")).to_have_text("3", timeout=2000)
    assert time.monotonic() - filed < 2.0
    expect(watcher.locator("#standings tbody.flash")).to_have_count(4)  # everyone moved
    expect(watcher.locator("#standings")).to_contain_text("after 1 deal")
    assert asked == [asked[0]]  # the page itself, then nothing more
    screenshot(watcher, "12-standings-viewer-live")


def test_a_phone_without_event_streams_asks_every_1_5_s_and_still_follows(
    new_phone, table_of_four, user, actor
):
    session, players = table_of_four
    link = share_link_create(session_id=session.pk, role="viewer", actor=Actor(user=user))
    watcher = new_phone()
    watcher.add_init_script("delete window.EventSource;")  # an old browser, a proxy...
    asked = []
    watcher.on(
        "request",
        lambda request: asked.append(request.url) if "/standings/" in request.url else None,
    )
    watcher.goto(f"/s/{link.token}/standings/")
    alice_row = watcher.locator("#standings tbody", has_text="Alice").first

    deal = session.deals.get()
    for name in ("Alice", "Cara", "Ben"):
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)

    expect(alice_row.locator("td.strong")).to_have_text("3", timeout=4000)
    assert not [url for url in asked if "/live/" in url]
    assert len(asked) >= 2  # the page, then its questions


def test_a_viewer_link_cannot_tap(new_phone, table_of_four, user, screenshot):
    session, players = table_of_four
    link = share_link_create(session_id=session.pk, role="viewer", actor=Actor(user=user))
    viewer = new_phone()

    # The link's front door is the standings; the tap screen sends it there.
    viewer.goto(f"/s/{link.token}/")
    expect(viewer).to_have_url(f"{viewer.url.split('/s/')[0]}/s/{link.token}/standings/")
    expect(viewer.locator(".player__tap")).to_have_count(0)
    expect(viewer.get_by_role("link", name="Table")).to_have_count(0)

    # Posting a tap anyway is refused, and nothing changes.
    deal = session.deals.get()
    response = viewer.request.post(
        f"/s/{link.token}/tap/",
        form={"deal": str(deal.pk), "player": str(players["Alice"].pk), "key": "k"},
        headers={"X-CSRFToken": viewer.context.cookies()[0]["value"]},
    )
    assert response.status == 403
    assert deal.taps.count() == 0
    screenshot(viewer, "13-standings-viewer")


def test_a_scorer_link_taps_without_signing_in(new_phone, table_of_four, user, screenshot):
    session, _players = table_of_four
    link = share_link_create(session_id=session.pk, role="scorer", actor=Actor(user=user))
    phone = new_phone()
    phone.goto(f"/s/{link.token}/")
    dev = phone.locator(".player__tap").filter(has_text="Dev")
    dev.click()
    expect(dev.locator(".badge:not(.badge--next)")).to_have_text("1st")
    expect(dev).to_be_disabled()
    assert session.deals.get().taps.get().recorded_via_id == link.pk


def test_the_tap_screen_follows_a_tap_on_the_other_phone_but_not_under_an_open_sheet(
    new_phone, make_session, user, screenshot
):
    """Two phones score one table: what one taps shows on the other within 2 s, without
    a reload; while the other has a sheet open, the screen waits until it is closed."""
    from scoring import Options

    session, _players = make_session(options=Options(penalties=True))
    link = share_link_create(session_id=session.pk, role="scorer", actor=Actor(user=user))
    first = new_phone()
    sign_in(first, "host", "table-of-four")
    first.goto(f"/sessions/{session.pk}/")
    second = new_phone()
    second.goto(f"/s/{link.token}/")

    second.locator(".player__tap").filter(has_text="Alice").click()
    tapped = time.monotonic()
    alice = first.locator(".player__tap").filter(has_text="Alice")
    expect(alice.locator(".badge:not(.badge--next)")).to_have_text("1st", timeout=2000)
    assert time.monotonic() - tapped < 2.0

    first.locator(".action__button", has_text="2 chopped").click()
    second.locator(".player__tap").filter(has_text="Ben").click()
    expect(second.locator(".player__tap").filter(has_text="Ben")).to_be_disabled()
    first.wait_for_timeout(2500)
    ben = first.locator(".player__tap").filter(has_text="Ben")
    expect(first.locator(".action[open] .sheet")).to_be_visible()  # not swapped away
    expect(ben.locator(".badge:not(.badge--next)")).to_have_count(0)
    first.locator(".action[open] [data-close-sheet]").click()
    expect(ben.locator(".badge:not(.badge--next)")).to_have_text("2nd", timeout=2000)


def test_end_match_on_the_empty_next_deal_shows_ended_on_the_watching_phone(
    new_phone, table_of_four, user
):
    """The last deal filed, the host ends the match on the empty deal it opened: the
    watcher's standings stop saying "live" without a reload."""
    session, players = table_of_four
    actor = Actor(user=user)
    deal = session.deals.get(status="open")
    for name in ("Alice", "Cara", "Ben"):
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    watcher = new_phone()
    watcher.goto(f"/s/{link.token}/standings/")
    expect(watcher.locator("#standings .live")).to_be_visible()
    watcher.wait_for_timeout(1500)  # the stream is open and has said its first events

    session_end(session_id=session.pk, actor=actor)

    expect(watcher.locator("#standings .pill")).to_have_text("ended", timeout=3000)
    expect(watcher.locator("#standings .live")).to_have_count(0)
