"""A table with no signal: the tap screen opens offline, taps and sheets wait on the phone,
and when the signal returns each is applied exactly once (issue 12)."""

import re

import pytest
from playwright.sync_api import expect

import scoring
from tests.browser.conftest import fits_width, sign_in, worker_keeps
from tests.views.helpers import ben_chops_alice
from tracker.access import Actor
from tracker.models import Deal, DealEvent, IdempotencyKey, Tap
from tracker.services import deal_tap, share_link_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PENALTIES = scoring.Options(penalties=True)


def ledger(session, number=1):
    deal = session.deals.get(number=number)
    return [
        (line.payer.name, line.payee.name, line.amount, line.reason)
        for line in deal.ledger_lines.select_related("payer", "payee").order_by("position")
    ]


def chop(page, by="Ben", owner="Alice"):
    """Record "Ben chopped Alice's 2 with a cutup (1 black)" from the bottom sheet."""
    page.locator(".action__button", has_text="2 chopped").click()
    sheet = page.locator(".action[open] .sheet")
    sheet.locator("fieldset", has_text="Who beat it").locator("label.chip", has_text=by).click()
    sheet.locator("fieldset", has_text="Whose 2").locator("label.chip", has_text=owner).click()
    sheet.locator("fieldset", has_text="Beaten with").locator("label.chip").first.click()
    sheet.locator("fieldset", has_text="Which 2s").locator("label.chip").first.click()
    sheet.locator(".sheet__save button").click()
    expect(page.locator(".action[open]")).to_have_count(0)


def tap(page, name):
    page.locator(".players:not(.players--question) .player__tap", has_text=name).click()


def kept_after_taps(offline_phone, table, user, names):
    """`names` tapped out on deal 1 through the services (three of four file it), then a
    phone signed in, its service worker keeping the tap screen: `(session, phone)`."""
    session, players = table
    deal = session.deals.get()
    for name in names:
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=Actor(user=user))
    phone = offline_phone()
    sign_in(phone, "host", "table-of-four")
    worker_keeps(phone, f"/sessions/{session.pk}/")
    return session, phone


def alice_and_ben_wait(offline_phone, make_session):
    """A phone that went offline on deal 1 and tapped Alice, then Ben: two waiting."""
    session, players = make_session()
    phone = offline_phone()
    sign_in(phone, "host", "table-of-four")
    worker_keeps(phone, f"/sessions/{session.pk}/")
    phone.context.set_offline(True)
    tap(phone, "Alice")
    tap(phone, "Ben")
    expect(phone.locator("#offline-bar")).to_contain_text("2 waiting")
    return session, players, phone


def the_same_deal_played_online(make_session, user):
    """Deal 1 as the offline phone recorded it, played straight through the services."""
    session, players = make_session(options=PENALTIES)
    actor = Actor(user=user)
    deal = session.deals.get()
    ben_chops_alice(deal, players, actor)
    for name in ("Alice", "Cara", "Ben"):
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
    return ledger(session)


def test_a_place_saved_before_the_signal_went_shows_once_beside_the_waiting_ones(
    offline_phone, make_session, screenshot
):
    """The saved badge is hidden while the phone draws the places itself, not shown
    beside its waiting copy (`.badge` is inline-block, which beat `hidden`)."""
    session, _players = make_session()
    phone = offline_phone()
    sign_in(phone, "host", "table-of-four")
    worker_keeps(phone, f"/sessions/{session.pk}/")
    tap(phone, "Alice")
    alice = phone.locator(".player__tap", has_text="Alice")
    expect(alice.locator(".badge:visible")).to_have_text("1st")  # saved, online

    phone.context.set_offline(True)
    tap(phone, "Cara")

    expect(phone.locator(".player__tap", has_text="Cara").locator(".badge:visible")).to_have_text(
        ["2nd"]
    )
    expect(alice.locator(".badge:visible")).to_have_text(["1st"])  # one, not two
    screenshot(phone, "offline-06-a-place-saved-before")


def test_a_deal_recorded_offline_waits_reopens_and_files_once(
    offline_phone, make_session, user, screenshot
):
    session, _players = make_session(options=PENALTIES)
    phone = offline_phone()
    sign_in(phone, "host", "table-of-four")
    worker_keeps(phone, f"/sessions/{session.pk}/")
    problems = []
    phone.on("console", lambda message: message.type == "error" and problems.append(message.text))

    phone.context.set_offline(True)
    bar = phone.locator("#offline-bar")
    expect(bar).to_contain_text("Offline — last in sync at")
    chop(phone)
    # The sheet's Save did not ask the server what it would move: no request failed.
    assert problems == []
    expect(phone.locator(".deal-log__waiting")).to_have_text("2 chopped: Ben, Alice, Cutup, 1 ♠♣")
    tap(phone, "Alice")
    tap(phone, "Cara")
    expect(bar).to_contain_text("3 waiting")
    expect(phone.locator(".player__tap", has_text="Alice").locator(".badge--waiting")).to_have_text(
        "1st"
    )
    tap(phone, "Ben")
    # The third tap files the deal on the phone: deal 2 opens, deal 1 is provisional.
    expect(phone.locator(".tap__deal")).to_have_text("· Deal 2")
    expect(phone.locator(".tap__opening")).to_have_text("Dev deals · Alice leads")
    expect(phone.locator(".last-deal__summary")).to_have_text(
        "Deal 1 (provisional): Alice 3 · Cara 2 · Ben 1 · Dev 0"
    )
    expect(bar).to_contain_text("4 waiting")
    assert (Tap.objects.count(), DealEvent.objects.count()) == (0, 0)

    # Reloaded without a signal, the screen opens as kept, with what waits on it.
    phone.reload()
    expect(phone.locator(".tap__deal")).to_have_text("· Deal 2")
    expect(bar).to_contain_text("4 waiting")
    expect(bar).to_contain_text("Offline — last in sync at")
    assert fits_width(phone)
    screenshot(phone, "60-offline-four-waiting")

    phone.context.set_offline(False)
    expect(bar).to_be_hidden(timeout=10_000)
    expect(phone.locator(".tap__deal")).to_have_text("· Deal 2")
    expect(phone.locator(".last-deal__summary")).to_contain_text("Deal 1: Alice 3")
    expect(phone.locator(".last-deal__summary")).not_to_contain_text("provisional")
    screenshot(phone, "61-offline-sent")

    deal = session.deals.get(number=1)
    assert deal.status == Deal.Status.FILED
    assert Deal.objects.filter(session=session).count() == 2
    assert Tap.objects.filter(deal__session=session).count() == 3
    assert DealEvent.objects.filter(deal__session=session).count() == 1
    assert IdempotencyKey.objects.count() == 4
    assert ledger(session) == the_same_deal_played_online(make_session, user)


def test_a_deal_filed_by_another_phone_meanwhile_stops_the_queue_and_says_why(
    offline_phone, make_session, user, screenshot
):
    session, players, phone = alice_and_ben_wait(offline_phone, make_session)
    # Meanwhile the other phone at the table files deal 1 its own way.
    deal = session.deals.get()
    for name in ("Dev", "Cara", "Alice"):
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=Actor(user=user))

    phone.context.set_offline(False)
    why = phone.locator(".offline-bar__why")
    expect(why).to_contain_text("Not saved: Alice 1st.")
    expect(why).to_contain_text("1 more waiting behind it.")
    expect(phone.locator("[data-queue=discard]")).to_be_visible()
    expect(phone.locator("[data-queue=reenter]")).to_be_visible()
    # The bar turns red (DESIGN.md), not the waiting yellow with a pink box in it.
    expect(phone.locator("#offline-bar")).to_have_class(re.compile(r"\bis-refused\b"))
    bar, alert = phone.evaluate(
        """() => [getComputedStyle(document.getElementById("offline-bar")).backgroundColor,
                  getComputedStyle(document.documentElement).getPropertyValue("--alert-bg")]"""
    )
    assert bar == phone.evaluate(
        "(colour) => { const probe = document.createElement('i'); probe.style.color = colour;"
        " document.body.append(probe); const said = getComputedStyle(probe).color;"
        " probe.remove(); return said; }",
        alert.strip(),
    )
    screenshot(phone, "62-offline-refused")
    # Nothing doubled: deal 1 stands as the other phone filed it.
    assert list(deal.taps.order_by("seq").values_list("player__name", flat=True)) == [
        "Dev",
        "Cara",
        "Alice",
    ]

    # Re-enter drops what was refused and what waited behind it; the server's deal 2 shows.
    phone.locator("[data-queue=reenter]").click()
    expect(phone.locator("#offline-bar")).to_be_hidden()
    expect(phone.locator(".tap__deal")).to_have_text("· Deal 2")
    assert Tap.objects.count() == 3


def test_taps_queued_offline_on_a_deal_another_phone_tapped_meanwhile_are_refused(
    offline_phone, make_session, user, screenshot
):
    """Found by a tester: the queued taps, shown 1st and 2nd, were stored 2nd and 3rd
    behind the other phone's and filed the deal, and the phone said nothing."""
    session, players, phone = alice_and_ben_wait(offline_phone, make_session)
    # Meanwhile the other phone at the table taps Dev out first; the deal stays open.
    deal = session.deals.get()
    deal_tap(deal_id=deal.pk, player_id=players["Dev"].pk, actor=Actor(user=user))

    phone.context.set_offline(False)
    why = phone.locator(".offline-bar__why")
    expect(why).to_contain_text("Not saved: Alice 1st.")
    expect(why).to_contain_text("Someone else recorded on deal 1 meanwhile")
    expect(phone.locator("[data-queue=reenter]")).to_be_visible()
    screenshot(phone, "63-offline-moved-on")
    assert list(deal.taps.values_list("player__name", flat=True)) == ["Dev"]
    assert deal.status == Deal.Status.OPEN

    # Re-enter: what waited is dropped, and the screen shows the deal as it stands.
    phone.locator("[data-queue=reenter]").click()
    expect(phone.locator("#offline-bar")).to_be_hidden()
    expect(phone.locator(".player--out")).to_have_count(1)
    assert Tap.objects.count() == 1


def test_guaransheed_is_not_offered_offline_once_someone_is_out(offline_phone, make_session):
    """Found by a tester: offline, the sheet stayed after a tap; a declaration recorded
    there was refused on arrival and held up the tap queued behind it."""
    session, _players = make_session(options=scoring.Options(guaransheed=True))
    phone = offline_phone()
    sign_in(phone, "host", "table-of-four")
    worker_keeps(phone, f"/sessions/{session.pk}/")
    guaransheed = phone.locator(".action", has_text="Guaransheed")
    expect(guaransheed).to_be_visible()

    phone.context.set_offline(True)
    tap(phone, "Alice")

    expect(phone.locator("#offline-bar")).to_contain_text("1 waiting")
    expect(guaransheed).to_be_hidden()


def test_a_connection_lost_while_sending_applies_every_tap_once_on_the_next_try(
    offline_phone, make_session
):
    session, _players = make_session()
    phone = offline_phone()
    sign_in(phone, "host", "table-of-four")
    worker_keeps(phone, f"/sessions/{session.pk}/")
    phone.context.set_offline(True)
    for name in ("Alice", "Cara", "Ben"):
        tap(phone, name)
    expect(phone.locator("#offline-bar")).to_contain_text("3 waiting")

    sent = []

    def second_one_dies(route):
        sent.append(route.request.url)
        if len(sent) == 2:
            route.fetch()  # the server applies it...
            route.abort("connectionreset")  # ...and the answer is lost
        else:
            route.continue_()

    phone.route(re.compile(r".*/deals/\d+/tap/$"), second_one_dies)
    phone.context.set_offline(False)

    expect(phone.locator("#offline-bar")).to_be_hidden(timeout=15_000)
    expect(phone.locator(".tap__deal")).to_have_text("· Deal 2")
    assert len(sent) == 4  # the lost one sent again, with its key
    assert sent[1] == sent[2]
    deal = session.deals.get(number=1)
    assert list(deal.taps.order_by("seq").values_list("player__name", flat=True)) == [
        "Alice",
        "Cara",
        "Ben",
    ]
    assert IdempotencyKey.objects.count() == 3


def test_offline_in_vietnamese_on_a_small_phone_with_a_long_name(
    offline_phone, make_session, screenshot
):
    long_name = "Nguyễn Thị Phương Thảo Hoàng Bảo Ngọc An"  # 40 characters
    assert len(long_name) == 40
    session, _players = make_session(players=(long_name, "Bình", "Châu", "Dũng"))
    phone = offline_phone("vi-VN", viewport={"width": 320, "height": 568})
    sign_in(phone, "host", "table-of-four")
    worker_keeps(phone, f"/sessions/{session.pk}/")

    phone.context.set_offline(True)
    tap(phone, long_name)
    tap(phone, "Bình")
    bar = phone.locator("#offline-bar")
    expect(bar).to_contain_text("Mất kết nối — đồng bộ lần cuối lúc")
    expect(bar).to_contain_text("2 đang chờ")
    phone.reload()
    expect(bar).to_contain_text("2 đang chờ")
    assert fits_width(phone)
    screenshot(phone, "63-offline-vietnamese-320")
    # Nothing covers the bar or a player's button: each is what a finger lands on.
    for target in [
        ".offline-bar__count",
        *[f".players .player:nth-child({n}) .player__tap" for n in (1, 2, 3, 4)],
        ".thumb-bar .button--undo",
    ]:
        element = phone.locator(target).first
        element.scroll_into_view_if_needed()
        assert element.evaluate(
            """node => {
                const box = node.getBoundingClientRect();
                const x = box.x + box.width / 2, y = box.y + box.height / 2;
                const hit = document.elementFromPoint(x, y);
                return hit === node || node.contains(hit);
            }"""
        ), target

    phone.context.set_offline(False)
    expect(bar).to_be_hidden(timeout=10_000)
    assert Tap.objects.count() == 2


def test_a_scorer_link_keeps_scoring_offline(offline_phone, make_session, user, screenshot):
    session, _players = make_session()
    link = share_link_create(session_id=session.pk, role="scorer", actor=Actor(user=user))
    phone = offline_phone()
    worker_keeps(phone, f"/s/{link.token}/standings/")
    worker_keeps(phone, f"/s/{link.token}/")

    phone.context.set_offline(True)
    tap(phone, "Cara")
    # Kept in IndexedDB before the page goes: a reload at once could drop the write on its
    # way there (this test failed twice in one CI run that way).
    expect(phone.locator("#offline-bar")).to_contain_text("1 waiting")
    phone.reload()
    expect(phone.locator("#offline-bar")).to_contain_text("1 waiting")
    expect(phone.locator(".player__tap", has_text="Cara").locator(".badge--waiting")).to_have_text(
        "1st"
    )
    # The standings open as last seen, saying that what waits is not counted yet.
    phone.goto(f"/s/{link.token}/standings/")
    expect(phone.locator("#offline-bar")).to_contain_text("1 waiting")
    expect(phone.locator(".offline-bar__provisional")).to_have_text(
        "Provisional: what waits is not counted here yet."
    )
    expect(phone.locator("#standings .offline")).to_be_visible()  # not "live"
    screenshot(phone, "64-offline-standings-scorer-link")
    # A page never opened here says so, with a 200 (not the browser's error).
    assert phone.goto(f"/s/{link.token}/settle/").status == 200
    expect(phone.get_by_role("heading", name="No signal")).to_be_visible()
    expect(phone.locator(".offline-bar__state")).to_have_text("No signal")
    screenshot(phone, "65-offline-not-kept")
    phone.goto(f"/s/{link.token}/")
    # The bar starts hidden: wait until the queue is read back before going online, or
    # "hidden" would be seen before anything was sent.
    expect(phone.locator("#offline-bar")).to_contain_text("1 waiting")

    phone.context.set_offline(False)
    expect(phone.locator("#offline-bar")).to_be_hidden(timeout=10_000)
    tap_row = Tap.objects.get()
    assert (tap_row.player.name, tap_row.recorded_via_id) == ("Cara", link.pk)


def test_the_installability_criteria_are_met(offline_phone, live_server):
    """What Lighthouse asks of an installable app, one by one."""
    phone = offline_phone()
    phone.goto("/")
    manifest_url = phone.locator("link[rel=manifest]").get_attribute("href")
    response = phone.request.get(manifest_url)
    assert response.headers["content-type"] == "application/manifest+json"
    manifest = response.json()
    # The manifest: a name, a short name, a start URL, standalone display, icons.
    assert manifest["name"] and manifest["short_name"]
    assert manifest["display"] in ("standalone", "fullscreen", "minimal-ui")
    assert manifest["start_url"] == "/"
    sizes = {icon["sizes"]: icon for icon in manifest["icons"] if icon["type"] == "image/png"}
    assert {"192x192", "512x512"} <= set(sizes)
    assert any(icon["purpose"] == "maskable" for icon in manifest["icons"])
    for icon in manifest["icons"]:
        image = phone.request.get(icon["src"])
        assert (image.status, image.headers["content-type"]) == (200, "image/png")
        width, height = icon["sizes"].split("x")
        body = image.body()
        assert (int.from_bytes(body[16:20], "big"), int.from_bytes(body[20:24], "big")) == (
            int(width),
            int(height),
        )
    # A service worker controls the start URL...
    phone.wait_for_function("() => navigator.serviceWorker.controller !== null")
    scope = phone.evaluate("navigator.serviceWorker.getRegistration('/').then(r => r.scope)")
    assert scope == f"{live_server.url}/"
    # ...and the start URL answers 200 without a signal.
    phone.context.set_offline(True)
    offline = phone.goto(manifest["start_url"])
    assert offline.status == 200
    expect(phone.locator("#offline-bar")).to_be_visible()


def test_signing_out_forgets_the_pages_kept_for_the_account(offline_phone, make_session):
    session, _players = make_session()
    phone = offline_phone()
    sign_in(phone, "host", "table-of-four")
    worker_keeps(phone, f"/sessions/{session.pk}/")

    phone.goto("/")
    phone.get_by_role("button", name="Sign out").click()
    phone.wait_for_url("**/")
    expect(phone.get_by_role("link", name="Sign in").first).to_be_visible()

    # The next person on this phone, without a signal, does not see the host's table.
    phone.wait_for_function(
        "() => caches.keys().then(names => Promise.all(names.map(name => caches.open(name)"
        ".then(cache => cache.keys())))).then(kept => !kept.flat().some("
        f"request => new URL(request.url).pathname === '/sessions/{session.pk}/'))"
    )
    phone.context.set_offline(True)
    phone.goto(f"/sessions/{session.pk}/")
    expect(phone.get_by_role("heading", name="No signal")).to_be_visible()


def test_the_page_kept_is_the_page_as_last_seen_not_as_first_opened(offline_phone, make_session):
    session, _players = make_session()
    phone = offline_phone()
    sign_in(phone, "host", "table-of-four")
    worker_keeps(phone, f"/sessions/{session.pk}/")
    tap(phone, "Alice")  # online: htmx swaps the screen in, the worker fetches it again
    expect(phone.locator(".player__tap", has_text="Alice").locator(".badge")).to_have_text("1st")
    phone.wait_for_function(
        "(path) => caches.keys().then(names => Promise.all(names.map(name => caches.open(name)"
        ".then(cache => cache.match(path))))).then(found => found.filter(Boolean)[0])"
        ".then(page => page && page.text())"
        ".then(text => Boolean(text && text.includes('Undo Alice 1st')))",
        arg=f"/sessions/{session.pk}/",
    )

    phone.context.set_offline(True)
    phone.reload()

    expect(phone.locator(".player__tap", has_text="Alice").locator(".badge")).to_have_text("1st")
    expect(phone.locator("#offline-bar")).not_to_contain_text("waiting")


def test_a_sign_in_that_ran_out_forgets_the_page_kept_for_the_account(offline_phone, make_session):
    """No Sign out pressed (the sign-in ran out, or was ended on another device): the
    server sends the page to sign in; the worker forgets what it kept of it, so the next
    person on this phone, without a signal, does not see the host's table."""
    session, _players = make_session()
    phone = offline_phone()
    sign_in(phone, "host", "table-of-four")
    worker_keeps(phone, f"/sessions/{session.pk}/")
    phone.context.clear_cookies()

    phone.goto(f"/sessions/{session.pk}/")
    phone.wait_for_url("**/accounts/login/**")
    phone.wait_for_function(
        "(path) => caches.keys().then(names => Promise.all(names.map(name => caches.open(name)"
        ".then(cache => cache.match(path, { ignoreVary: true })))))"
        ".then(found => !found.some(Boolean))",
        arg=f"/sessions/{session.pk}/",
        timeout=3000,
    )
    phone.context.set_offline(True)
    phone.goto(f"/sessions/{session.pk}/")
    expect(phone.get_by_role("heading", name="No signal")).to_be_visible()


def test_an_instant_win_recorded_offline_files_the_deal_and_the_next_taps_go_to_the_next(
    offline_phone, make_session
):
    """An instant win files the deal by itself: offline, the phone opens the next deal
    (the plan says what the claim files), so the taps after it wait for deal 2, not deal
    1, which the server would refuse as filed."""
    session, _players = make_session(options=scoring.Options(instant_wins=True))
    phone = offline_phone()
    sign_in(phone, "host", "table-of-four")
    worker_keeps(phone, f"/sessions/{session.pk}/")

    phone.context.set_offline(True)
    phone.locator(".action__button", has_text="Instant win").click()
    sheet = phone.locator(".action[open] .sheet")
    sheet.locator("label.chip", has_text="Cara").click()
    sheet.locator("input[name=kind]").first.locator("xpath=..").click()
    sheet.locator(".sheet__save button").click()
    expect(phone.locator(".tap__deal")).to_have_text("· Deal 2")
    expect(phone.locator(".tap__opening")).to_contain_text("Cara leads")
    tap(phone, "Ben")
    expect(phone.locator("#offline-bar")).to_contain_text("2 waiting")

    phone.context.set_offline(False)
    expect(phone.locator("#offline-bar")).to_be_hidden(timeout=10_000)
    expect(phone.locator(".tap__deal")).to_have_text("· Deal 2")

    assert session.deals.get(number=1).status == Deal.Status.FILED
    second = session.deals.get(number=2)
    assert [tap.player.name for tap in second.taps.all()] == ["Ben"]
    assert DealEvent.objects.filter(deal__session=session).count() == 1


def test_offline_the_roles_and_undo_follow_the_deal_the_phone_is_on(
    offline_phone, make_session, user, screenshot
):
    """Deal 1 is filed online (Dev lost: he deals deal 2, Alice leads it). Offline, the
    phone files deal 2 (Ben, Cara, Alice out): on deal 3 the buttons say Dev deals and Ben
    leads, not deal 2's roles. The server drew Undo as "Re-open deal 1?"; offline it asks
    about deal 2, the deal this phone filed, and once a tap waits on deal 3 Undo takes it
    back without asking anything (it asked to re-open deal 1, then took back the tap)."""
    session, phone = kept_after_taps(offline_phone, make_session(), user, ("Alice", "Cara", "Ben"))

    def roles(name):
        return phone.locator(".player__tap", has_text=name).locator(".role:visible")

    expect(roles("Dev")).to_have_text(["deals"])
    expect(roles("Alice")).to_have_text(["leads"])

    phone.context.set_offline(True)
    for name in ("Ben", "Cara", "Alice"):
        tap(phone, name)
    expect(phone.locator(".tap__deal")).to_have_text("· Deal 3")
    expect(phone.locator(".tap__opening")).to_have_text("Dev deals · Ben leads")
    expect(roles("Dev")).to_have_text(["deals"])
    expect(roles("Ben")).to_have_text(["leads"])
    expect(roles("Alice")).to_have_count(0)

    undo = phone.locator(".thumb-bar .button--undo")
    expect(undo).to_contain_text("Undo deal 2: Alice 3rd")
    undo.click()
    sheet = phone.locator(".undo-confirm[open] .sheet")
    expect(sheet.locator(".sheet__title")).to_have_text("Re-open deal 2?")
    expect(sheet).to_contain_text("deal 3, still empty, goes away")
    expect(sheet.locator(".sheet__save button")).to_contain_text("Undo deal 2: Alice 3rd")
    screenshot(phone, "offline-07-reopen-the-deal-filed-here")
    sheet.locator("[data-close-sheet]").click()

    tap(phone, "Cara")
    expect(undo).to_contain_text("Undo Cara 1st")
    undo.click()
    expect(phone.locator(".undo-confirm[open]")).to_have_count(0)
    cara = phone.locator(".player__tap", has_text="Cara")
    expect(cara.locator(".badge--waiting")).to_have_count(0)
    bar = phone.locator("#offline-bar")
    expect(bar).to_contain_text("5 waiting")

    phone.context.set_offline(False)
    expect(bar).to_be_hidden(timeout=10_000)
    assert session.deals.get(number=2).status == Deal.Status.FILED
    third = session.deals.get(number=3)
    assert [(tap.player.name, tap.undone_at is not None) for tap in third.taps.all()] == [
        ("Cara", True)
    ]


ALIKE = [
    "Nguyễn Thị Minh Khai Phương Hoàng Lan Vy",
    "Nguyễn Thị Minh Khai Phương Hoàng Lan Hà",
    "Nguyễn Thị Minh Khai Phương Hoàng Lan My",
    "Nguyễn Thị Minh Khai Phương Hoàng Lan Tú",
]
# Whether Undo's label shows whole (not cut at its second line).
UNDO_WHOLE = """() => { const label = document.querySelector(".thumb-bar .button--undo__label");
    return label.scrollHeight <= label.clientHeight + 1; }"""


def test_undo_names_whom_it_takes_back_at_320_online_and_offline(offline_phone, make_session):
    """Undo said "Hoàn tác: Nguyễn Thị Minh Khai Phương Hoà…": neither the player nor the
    place, with no question asked (session 25's review). It says a long name by its first
    and last words, online and offline alike, and the place after it."""
    session, _players = make_session(players=ALIKE)
    phone = offline_phone("vi-VN", viewport={"width": 320, "height": 568})
    sign_in(phone, "host", "table-of-four")
    worker_keeps(phone, f"/sessions/{session.pk}/")
    undo = phone.locator(".thumb-bar .button--undo__label")

    tap(phone, ALIKE[0])
    expect(undo).to_have_text("Hoàn tác: Nguyễn … Lan Vy về Nhất")
    assert phone.evaluate(UNDO_WHOLE)

    phone.context.set_offline(True)
    tap(phone, ALIKE[3])
    expect(undo).to_have_text("Hoàn tác: Nguyễn … Lan Tú về Nhì")
    assert phone.evaluate(UNDO_WHOLE)


def test_undone_back_to_the_server_s_deal_undo_asks_the_server_s_question(
    offline_phone, make_session, user
):
    """Offline the phone files deal 2 (the question becomes "Re-open deal 2?"), re-opens
    it and takes back its two other taps: it is on deal 2 again, empty, as the server drew
    it. The question said "Re-open deal 2? ... deal 3, still empty, goes away" over it; it
    is the server's again, about deal 1 (found by session 25's review)."""
    session, phone = kept_after_taps(offline_phone, make_session(), user, ("Alice", "Cara", "Ben"))
    undo = phone.locator(".thumb-bar .button--undo")
    sheet = phone.locator(".undo-confirm[open] .sheet")
    expect(undo).to_contain_text("Undo deal 1: Ben 3rd")

    phone.context.set_offline(True)
    for name in ("Ben", "Cara", "Alice"):
        tap(phone, name)
    expect(phone.locator(".tap__deal")).to_have_text("· Deal 3")
    undo.click()
    expect(sheet.locator(".sheet__title")).to_have_text("Re-open deal 2?")
    sheet.locator(".sheet__save button").click()  # deal 2 open again: Ben, Cara wait
    expect(phone.locator(".tap__deal")).to_have_text("· Deal 2")
    expect(undo).to_contain_text("Undo Cara 2nd")
    undo.click()  # plain: takes Cara back
    expect(undo).to_contain_text("Undo Ben 1st")
    undo.click()  # plain: takes Ben back
    expect(phone.locator("#offline-bar")).to_contain_text("6 waiting")

    expect(undo).to_contain_text("Undo deal 1: Ben 3rd")
    undo.click()
    expect(sheet.locator(".sheet__title")).to_have_text("Re-open deal 1?")
    expect(sheet).to_contain_text("deal 2, still empty, goes away")
    expect(sheet.locator(".sheet__save button")).to_contain_text("Undo deal 1: Ben 3rd")


def test_a_loser_tapped_offline_is_said_lost_as_the_server_says_it(
    offline_phone, make_session, user
):
    """Offline, Undo said a loser tap as a place ("Eve 5th"); the server says "Eve lost"
    (found by session 25's review)."""
    table = make_session(players=("Alice", "Ben", "Cara", "Dev", "Eve"))
    session, phone = kept_after_taps(offline_phone, table, user, ("Alice", "Ben", "Cara"))
    expect(phone.locator(".question")).to_contain_text("Who lost?")

    phone.context.set_offline(True)
    phone.locator(".player__tap--loser", has_text="Eve").click()

    expect(phone.locator(".tap__deal")).to_have_text("· Deal 2")
    expect(phone.locator(".thumb-bar .button--undo")).to_contain_text("Undo deal 1: Eve lost")


def test_an_undo_queued_offline_while_another_phone_filed_the_deal_undoes_nothing(
    offline_phone, make_session, user
):
    """Found by a tester: the phone's Undo (of Alice 1st), queued offline, arrived after
    the other phone's taps filed deal 1, and took back that phone's filing tap: deal 1
    re-opened without asking and deal 2 went away, silently."""
    session, phone = kept_after_taps(offline_phone, make_session(), user, ("Alice",))
    phone.context.set_offline(True)
    undo = phone.locator(".thumb-bar .button--undo")
    expect(undo).to_contain_text("Undo Alice 1st")
    undo.click()
    expect(phone.locator("#offline-bar")).to_contain_text("1 waiting")
    deal = session.deals.get(number=1)
    players = {dp.player.name: dp.player for dp in deal.deal_players.select_related("player")}
    for name in ("Cara", "Ben"):  # the other phone files deal 1
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=Actor(user=user))

    phone.context.set_offline(False)
    expect(phone.locator(".offline-bar__why")).to_contain_text(
        "Someone else changed deal 1 meanwhile, so nothing was undone"
    )
    deal.refresh_from_db()
    assert deal.status == Deal.Status.FILED
    assert session.deals.filter(number=2).exists()
    assert Tap.objects.filter(undone_at__isnull=True).count() == 3


def test_a_chop_queued_offline_that_another_phone_recorded_meanwhile_counts_once(
    offline_phone, make_session, user
):
    """Found by a tester: "2 chopped" entered on both phones, one offline, was counted
    twice and neither said so."""
    session, players = make_session(options=PENALTIES)
    phone = offline_phone()
    sign_in(phone, "host", "table-of-four")
    worker_keeps(phone, f"/sessions/{session.pk}/")
    phone.context.set_offline(True)
    chop(phone)
    expect(phone.locator("#offline-bar")).to_contain_text("1 waiting")
    ben_chops_alice(session.deals.get(), players, Actor(user=user), seen=0)  # the other phone

    phone.context.set_offline(False)
    expect(phone.locator(".offline-bar__why")).to_contain_text("it is not counted twice")
    assert DealEvent.objects.count() == 1
