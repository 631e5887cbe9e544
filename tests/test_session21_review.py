"""Session 21's review of 94b41cc (standings on two lines), 899ad6e (the API's last
route) and 6fd33d7 (a claim re-reads the membership under the circle's lock)."""

import threading
import time
from html.parser import HTMLParser

import pytest
from django.db import connection
from django.urls import reverse

from tests.api.conftest import api, start, token  # noqa: F401 (fixtures)
from tests.api.test_addresses import NOTHING, debug  # noqa: F401 (a fixture)
from tests.views.conftest import member, table  # noqa: F401 (fixtures)
from tests.views.helpers import play_deals
from tests.views.test_live_access import _waiting_on_a_lock
from tracker.access import Actor
from tracker.models import Player
from tracker.services import members as member_services
from tracker.services import player_claim, player_create, player_unclaim

# --- 899ad6e: the API's last route -------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_a_write_to_bare_api_is_a_json_404_not_a_500_or_a_redirect(debug, api, method):  # noqa: F811
    """`/api` (no slash) is a regression of the new last route. Before it, "/api/" matched
    nothing, so CommonMiddleware left `/api` alone: a plain 404. Now the last route makes
    "/api/" a valid path, but `^api/(?P<rest>.*)$` does not take `/api` itself, so
    APPEND_SLASH fires again: with DEBUG on (`make run`) a POST/PUT/PATCH is Django's
    RuntimeError, a 500 HTML page (the very failure the commit set out to end), and with
    DEBUG off every write is 301-redirected to /api/, its body dropped, which contradicts
    docs/api.md ("a write without it is a 404 ... a redirect would lose its body"). A
    client with a base-URL typo gets a 500 or a silent GET instead of a JSON answer.
    Fix: let the last route take `/api` too, e.g. `re_path(r"^api(?:/(?P<rest>.*))?\\Z")`
    with `(?s)` (see the next test), so CommonMiddleware never redirects under /api."""
    api.raise_request_exception = False

    response = getattr(api, method)("/api", {"player": 1})

    assert response.status_code == 404, (response.status_code, response.get("Location"))
    assert response["Content-Type"] == "application/json"
    assert response.json() == NOTHING


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post"])
def test_an_api_address_ending_in_a_newline_is_json_with_debug_on(debug, api, method):  # noqa: F811
    """Not a regression, but a hole in the new promise "JSON, with DEBUG on too": the last
    route's `.*` does not match a newline and Django full-matches a `$` pattern, so
    `/api/nowhere%0A` (a trailing newline from a script that read the URL from a file or
    a header) falls through every route and, with DEBUG on, gets Django's HTML 404 page
    (DEBUG off still reaches `handler404`, JSON). Fix: `(?s)` in the pattern (or
    `(?P<rest>[\\s\\S]*)`)."""
    response = getattr(api, method)("/api/nowhere%0A")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == NOTHING


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "head"])
@pytest.mark.parametrize(
    "path",
    [
        "/api/sessions/{id}/standings?next=//evil.com",
        "/api//evil.com/sessions/{id}/standings",
        "/api/%2F%2Fevil.com",
        "/api/sessions/{id}/standings/%2F%2Fevil.com",
        "/api/v1/sessions/{id}/standings?x=%E1%BA%A1",
        "/api/schema",
        "/api/docs",
    ],
)
def test_a_redirect_without_the_last_slash_stays_on_this_site(debug, start, api, method, path):  # noqa: F811
    """Guard (passes): the slash redirect the last route now makes by hand (CommonMiddleware
    escaped leading slashes for it) only ever sends a GET or HEAD to an address on this
    site under /api/, never to a scheme-relative `//host` — an open redirect would let a
    link on this domain send a phone to another one."""
    path = path.format(id=start().id)

    response = getattr(api, method)(path)

    if response.status_code == 301:
        assert response["Location"].startswith("/api/"), response["Location"]
        assert not response["Location"].startswith("//")
    else:
        assert response.status_code == 404
        assert response["Content-Type"] == "application/json"


# --- 94b41cc: a player on two lines ------------------------------------------------------


class _Groups(HTMLParser):
    """The main standings table's player groups: their id, their rowgroup headers' text,
    and how many data cells each holds."""

    def __init__(self):
        super().__init__()
        self.groups: list[dict] = []
        self.main = False
        self.header: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self.main = "standings__main" in (attrs.get("class") or "")
        elif self.main and tag == "tbody":
            self.groups.append({"id": attrs.get("id"), "headers": [], "cells": 0, "rows": 0})
        elif self.main and self.groups and tag == "tr":
            self.groups[-1]["rows"] += 1
        elif self.main and self.groups and tag == "th":
            assert attrs.get("scope") == "rowgroup", attrs
            self.header = []
        elif self.main and self.groups and tag == "td":
            self.groups[-1]["cells"] += 1

    def handle_data(self, data):
        if self.header is not None:
            self.header.append(data)

    def handle_endtag(self, tag):
        if tag == "th" and self.header is not None:
            self.groups[-1]["headers"].append("".join(self.header).strip())
            self.header = None
        elif tag == "table":
            self.main = False


@pytest.mark.django_db
def test_each_players_numbers_are_grouped_under_their_name(member, table, actor):  # noqa: F811
    """Guard (passes): nothing checked the table's screen-reader semantics. Each player is
    one `<tbody id="standing-<player>">` whose only header is `th scope="rowgroup"` with the
    name, so the points, wins and net on the line below are read with the name (by the
    HTML table model) and `#standing-<id>` still names the player's rows."""
    session, players = table
    play_deals(session, players, 2, actor)

    response = member.get(reverse("member:standings", kwargs={"session_id": session.pk}))
    parser = _Groups()
    parser.feed(response.text)

    names = {f"standing-{player.pk}": name for name, player in players.items()}
    assert {group["id"]: group["headers"] for group in parser.groups} == {
        key: [name] for key, name in names.items()
    }
    # The rank, the sparkline, points, wins, net: two rows of one player.
    assert {(group["rows"], group["cells"]) for group in parser.groups} == {(2, 5)}


# --- 6fd33d7: a claim locks the circle first ----------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_claim_racing_an_unclaim_of_the_same_player_does_not_deadlock(
    circle, actor, django_user_model, monkeypatch
):
    """6fd33d7 made `player_claim` lock the circle, then the player. `player_unclaim` locks
    the player with `select_related("circle")` and a bare `select_for_update()`, i.e. the
    player and then the circle (FOR UPDATE, which conflicts with the claim's NO KEY
    UPDATE): opposite orders. When the owner taps "not them" on Fred while another member
    taps "this is me" on him, the claim holds the circle and waits for Fred, the unclaim
    holds Fred and waits for the circle: PostgreSQL kills one after deadlock_timeout (1 s
    of both phones hanging), and that one is answered 409 `try_again` by the API, 503
    "database unavailable" by the circle page. (The same holds for a member claiming a
    new player while their old one is unclaimed: the claim then also updates the old
    one.) The test pauses the claim right after its own circle lock (at its membership
    re-read) until the unclaim is waiting, to hit the window every time.
    Fix: one order everywhere — in `player_unclaim` take `_locked_circle(player.circle_id)`
    first and lock the player with `select_for_update(of=("self",))`; that also ends the
    same cycle with `member_remove` (circle, then the removed member's players)."""
    friend = django_user_model.objects.create_user(username="friend", password="x")
    other = django_user_model.objects.create_user(username="other", password="x")
    circle.members.add(friend, other)
    fred = player_create(circle=circle, name="Fred")
    player_claim(player=fred, actor=Actor(user=friend))
    circle_locked, unclaim_waits = threading.Event(), threading.Event()
    reread = member_services.access_player
    errors: dict[str, str] = {}

    def paused(*args, **kwargs):  # player_claim, after its circle lock
        circle_locked.set()
        assert unclaim_waits.wait(10)
        return reread(*args, **kwargs)

    monkeypatch.setattr(member_services, "access_player", paused)

    def run(name, call):
        try:
            call()
        except Exception as error:  # reported by the assertion below
            errors[name] = repr(error)
        finally:
            connection.close()

    claim = threading.Thread(
        target=run, args=("claim", lambda: player_claim(player=fred, actor=Actor(user=other)))
    )
    unclaim = threading.Thread(
        target=run, args=("unclaim", lambda: player_unclaim(player=fred, actor=actor))
    )
    claim.start()
    assert circle_locked.wait(10)
    unclaim.start()
    deadline = time.monotonic() + 10
    while not _waiting_on_a_lock() and time.monotonic() < deadline:
        time.sleep(0.02)
    unclaim_waits.set()
    claim.join(30)
    unclaim.join(30)

    assert "deadlock" not in str(errors), errors
    # Both answered: the unclaim let Fred go, then the claim took him (or was refused).
    assert Player.objects.get(pk=fred.pk).user_id in (None, other.pk)
