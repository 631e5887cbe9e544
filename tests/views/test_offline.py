"""The installable app and the offline queue's doors: the manifest, the service worker,
what the tap screen tells a phone for offline, and the numbered page routes the queue
sends to (answered in JSON)."""

import json
import re

import pytest
from django.urls import reverse

from tests.views.helpers import open_deal
from tracker.access import Actor
from tracker.models import IdempotencyKey, Tap
from tracker.services import share_link_create

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}


def numbered(session, number, what="tap", *, token=None):
    if token is not None:
        return f"/s/{token}/deals/{number}/{what}/"
    return f"/sessions/{session.pk}/deals/{number}/{what}/"


def plan_of(response):
    found = re.search(
        r'<script id="offline-plan" type="application/json">(.*?)</script>', response.text
    )
    return json.loads(found.group(1)) if found else None


# --- Installable ------------------------------------------------------------------------


def test_the_manifest_says_what_an_installed_app_needs(client):
    response = client.get("/manifest.webmanifest")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert (manifest["name"], manifest["short_name"]) == ("SquareScores", "SquareScores")
    assert (manifest["display"], manifest["start_url"], manifest["scope"]) == (
        "standalone",
        "/",
        "/",
    )
    assert manifest["theme_color"] == manifest["background_color"] == "#101317"
    assert manifest["lang"] == "en"
    assert [(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]] == [
        ("192x192", "any"),
        ("512x512", "any"),
        ("512x512", "maskable"),
    ]


def test_the_manifest_speaks_vietnamese_to_a_vietnamese_phone(client):
    response = client.get("/manifest.webmanifest", HTTP_ACCEPT_LANGUAGE="vi")

    assert json.loads(response.content)["lang"] == "vi"


def test_every_page_links_the_manifest_the_theme_colour_and_the_worker(client):
    response = client.get("/accounts/login/")

    assert '<link rel="manifest" href="/manifest.webmanifest">' in response.text
    assert '<meta name="theme-color" content="#101317">' in response.text
    assert 'rel="apple-touch-icon"' in response.text
    assert 'data-worker="/sw.js"' in response.text
    assert "<script>" not in response.text  # registered from static/js/install.js


def test_the_service_worker_is_served_from_the_root_never_stale(client):
    response = client.get("/sw.js")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript"
    assert response["Cache-Control"] == "no-cache"
    assert response["Service-Worker-Allowed"] == "/"
    assert re.search(r'var VERSION = "[0-9a-f]{12}";', response.text)
    assert '"/static/js/offline.js"' in response.text
    assert '"/offline/"' in response.text


def test_the_csp_lets_the_worker_and_the_manifest_in(client):
    header = client.get("/").headers["Content-Security-Policy"]
    # The directives come in no set order: script-src may be the last, with no ";".
    policy = dict(directive.strip().split(" ", 1) for directive in header.split(";"))

    assert policy["worker-src"] == "'self'"
    assert policy["manifest-src"] == "'self'"
    assert policy["script-src"] == "'self'"  # still nothing inline
    assert policy["style-src"] == "'self'"


def test_the_no_signal_page_is_a_page(client):
    response = client.get("/offline/")

    assert response.status_code == 200
    assert "No signal" in response.text


def test_the_no_signal_page_names_no_account(member):
    """The worker keeps it when it installs, fetched with the account signed in then, and
    signing out does not empty the shell: the next person on the phone, without a signal,
    would read the account's name on it."""
    response = member.get("/offline/")

    assert response.status_code == 200
    assert "host" not in response.text
    assert "/accounts/logout/" not in response.text


# --- What the worker keeps --------------------------------------------------------------


def test_the_session_pages_are_marked_to_keep_and_the_share_page_is_not(member, table):
    session, _players = table
    kept = {
        page: member.get(f"/sessions/{session.pk}/{page}").get("X-Keep-Offline")
        for page in ("", "standings/", "deals/", "share/", "settle/")
    }

    assert kept == {"": "1", "standings/": "1", "deals/": "1", "share/": None, "settle/": None}


# --- The plan a phone scores on from offline ---------------------------------------------


def test_the_tap_screen_gives_the_phone_the_open_deal_and_its_orders(member, table):
    session, players = table
    ids = [players[name].pk for name in ("Alice", "Ben", "Cara", "Dev")]

    plan = plan_of(member.get(f"/sessions/{session.pk}/"))

    assert plan["scope"] == f"/sessions/{session.pk}/"
    assert plan["deals"] == f"/sessions/{session.pk}/deals/"
    assert plan["deal"] == 1
    assert plan["players"] == [
        [players[name].pk, name, name] for name in ("Alice", "Ben", "Cara", "Dev")
    ]
    assert plan["records"] == []
    assert plan["places"] == ["1st", "2nd", "3rd", "4th"]
    assert plan["ahead"]["orders"][""] == {"tap": ids, "loser": []}
    filing = plan["ahead"]["orders"][f"{ids[0]},{ids[2]},{ids[1]}"]
    assert (filing["dealer"], filing["leader"]) == (ids[3], ids[0])
    assert plan["next"]["complete"] is True


def test_a_viewer_link_gets_no_plan(table, client, user):
    session, _players = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=Actor(user=user))

    response = client.get(f"/s/{link.token}/standings/")

    assert plan_of(response) is None


# --- The numbered routes the queue sends to ----------------------------------------------


def test_a_queued_tap_by_number_answers_the_version_and_replays_once(member, table):
    session, players = table
    data = {"player": players["Alice"].pk, "key": "offline-1"}

    first = member.post(numbered(session, 1), data, **JSON)
    again = member.post(numbered(session, 1), data, **JSON)

    session.refresh_from_db()
    assert (first.status_code, again.status_code) == (200, 200)
    assert first.json() == again.json() == {"version": session.version}
    assert Tap.objects.count() == 1
    assert IdempotencyKey.objects.count() == 1


def test_a_refused_queued_tap_says_why_with_a_code(member, table):
    session, players = table
    member.post(numbered(session, 1), {"player": players["Alice"].pk, "key": "a"}, **JSON)

    response = member.post(
        numbered(session, 1), {"player": players["Alice"].pk, "key": "b"}, **JSON
    )

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert "Alice is already out" in response.json()["detail"]


def test_a_queued_tap_for_a_deal_not_yet_open_is_a_conflict(member, table):
    session, players = table

    response = member.post(
        numbered(session, 2), {"player": players["Alice"].pk, "key": "x"}, **JSON
    )

    assert response.status_code == 409
    assert response.json() == {
        "code": "deal_not_open",
        "detail": "Deal 2 is not open yet: the deal before it has not been filed on the server.",
    }
    assert Tap.objects.count() == 0


def test_a_queued_tap_for_no_such_deal_is_not_found(member, table):
    session, players = table

    response = member.post(
        numbered(session, 7), {"player": players["Alice"].pk, "key": "x"}, **JSON
    )

    assert response.status_code == 404
    assert response.json() == {
        "code": "deal_not_found",
        "detail": "There is no deal 7 in this session.",
    }


def test_a_queued_tap_from_another_account_is_not_found(table, stranger):
    session, players = table

    response = stranger.post(numbered(session, 1), {"player": players["Alice"].pk}, **JSON)

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert Tap.objects.count() == 0


def test_a_queued_tap_after_the_sign_in_ran_out_is_refused_not_sent_to_sign_in(table, client):
    """The queue follows redirects (fetch does): sent to the sign-in page, it would read
    its 200 as saved and drop the tap. A JSON request is told, with a code, instead."""
    session, players = table

    response = client.post(
        numbered(session, 1), {"player": players["Alice"].pk, "key": "x"}, **JSON
    )

    assert response.status_code == 401
    assert response.json() == {
        "code": "not_authenticated",
        "detail": "Sign in again to send what waits on this phone.",
    }
    assert Tap.objects.count() == 0


def test_a_viewer_link_may_not_queue_a_tap(table, client, user):
    session, players = table
    link = share_link_create(session_id=session.pk, role="viewer", actor=Actor(user=user))

    response = client.post(
        numbered(session, 1, token=link.token), {"player": players["Alice"].pk}, **JSON
    )

    assert response.status_code == 403
    assert response.json()["code"] == "viewer_read_only"


def test_a_scorer_link_queues_taps_events_and_undo_by_number(table, client, user):
    session, players = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=Actor(user=user))
    chopped = {
        "type": "two_beaten",
        "by": players["Ben"].pk,
        "owner": players["Alice"].pk,
        "beaten_with": "cutup",
        "twos": "1-0",
        "key": "e1",
    }

    answers = [
        client.post(numbered(session, 1, "event", token=link.token), chopped, **JSON),
        client.post(
            numbered(session, 1, token=link.token),
            {"player": players["Cara"].pk, "key": "t1"},
            **JSON,
        ),
        client.post(numbered(session, 1, "undo", token=link.token), {"key": "u1"}, **JSON),
    ]

    assert [answer.status_code for answer in answers] == [200, 200, 200], answers[0].json()
    assert Tap.objects.filter(undone_at__isnull=True).count() == 0
    assert open_deal(session).dealevents.filter(undone_at__isnull=True).count() == 1


def test_a_failed_send_replayed_to_its_first_address_is_applied_once(member, table):
    """A tap sent by htmx whose answer was lost waits in the queue as it was sent; sent
    again with the same key and form, it is answered from the stored key."""
    session, players = table
    data = {"deal": open_deal(session).pk, "player": players["Alice"].pk, "key": "lost-1"}
    url = reverse("member:tap_player", kwargs={"session_id": session.pk})
    member.post(url, data, HTTP_HX_REQUEST="true")

    again = member.post(url, data, **JSON)

    assert again.status_code == 200
    assert Tap.objects.count() == 1


def test_a_queued_tap_costs_the_same_queries_as_a_tap_from_the_screen(
    member, table, django_assert_num_queries
):
    session, players = table
    member.post(numbered(session, 1), {"player": players["Alice"].pk, "key": "a"}, **JSON)
    # 1 sign-in session, 2 user, 3 session in reach, 4 the gate's savepoint (in the test's
    # transaction), 5 deal by number, 6-10 the tap (version, players, taps and events,
    # insert, places: no savepoint of its own inside the gate's), 11-12 the key stored and
    # released: 12 statements, however long the session (the key is looked up only if it
    # clashes; the answer's version is the one the write read).
    with django_assert_num_queries(12):
        response = member.post(
            numbered(session, 1), {"player": players["Cara"].pk, "key": "b"}, **JSON
        )
    assert response.status_code == 200


def test_the_cache_version_moves_with_the_setting(client, settings):
    """A deploy that changes the shell, or OFFLINE_CACHE_VERSION, renames the caches: the
    new worker removes the old ones when it activates."""
    from tracker.views.offline import cache_version

    before = client.get("/sw.js").text
    settings.OFFLINE_CACHE_VERSION = "2"
    cache_version.cache_clear()
    try:
        after = client.get("/sw.js").text
    finally:
        cache_version.cache_clear()

    version = re.compile(r'var VERSION = "([0-9a-f]{12})";')
    assert version.search(before).group(1) != version.search(after).group(1)


def test_the_cache_version_moves_with_the_no_signal_page(client, settings, tmp_path):
    """The worker keeps the "No signal" page in the shell: a deploy that changes it (or
    the page it extends) must rename the caches, or phones keep the old one."""
    from tracker.views.offline import cache_version

    cache_version.cache_clear()
    before = cache_version()
    (tmp_path / "offline").mkdir()
    (tmp_path / "offline" / "page.html").write_text("<h1>No signal, changed</h1>")
    settings.TEMPLATES = [
        {**settings.TEMPLATES[0], "DIRS": [tmp_path, *settings.TEMPLATES[0]["DIRS"]]}
    ]
    cache_version.cache_clear()
    try:
        after = cache_version()
    finally:
        cache_version.cache_clear()

    assert after != before
