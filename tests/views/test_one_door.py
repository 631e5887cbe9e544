"""Regression tests for the defects the "one door" restructure closed (issue 9).

Black-box: pages through the test client, the API through `JsonClient`; services only
to set a table up. Each test names the defect it pins (numbers as in the issue):

1. page writes are not throttled like API writes (and do not share the API's bucket);
2. the correction form on a deal page carries no idempotency key;
3. a hand added to a filed deal is applied again for each retry of one key;
4. the "no such transfer" refusal names players of other circles;
5. the circle page counts a deal ended empty with End match;
6. the leaderboard CSV's file name differs between the page and the API;
7. some page forms that write carry no idempotency key.
"""

from __future__ import annotations

import re
import uuid
from html.parser import HTMLParser

import pytest
from django.core.cache import caches

import scoring
from tests.api.conftest import client_with
from tracker.access import Actor
from tracker.models import Correction, DealEvent, Tap
from tracker.services import (
    api_token_create,
    circle_create,
    deal_end,
    deal_tap,
    session_create,
    share_link_create,
)

pytestmark = pytest.mark.django_db

# --- Reading forms from a page ---------------------------------------------------------


class _FormReader(HTMLParser):
    """Every <form> of a page: method, action, and its fields in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[dict] = []
        self._form: dict | None = None
        self._select: dict | None = None
        self._textarea: dict | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attr = {name: value if value is not None else "" for name, value in attrs}
        if tag == "form":
            self._form = {
                "method": attr.get("method", "get").lower(),
                "action": attr.get("action", ""),
                "fields": [],
            }
            self.forms.append(self._form)
            return
        if self._form is None:
            return
        if tag in ("input", "button", "select", "textarea") and "name" in attr:
            field = {
                "tag": tag,
                "type": attr.get("type", "").lower(),
                "name": attr["name"],
                "value": attr.get("value", ""),
                "checked": "checked" in attr,
                "options": [],
            }
            self._form["fields"].append(field)
            if tag == "select":
                self._select = field
            if tag == "textarea":
                self._textarea = field
        elif tag == "option" and self._select is not None:
            self._select["options"].append((attr.get("value", ""), "selected" in attr))

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._textarea["value"] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None
        elif tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def forms_of(html: str) -> list[dict]:
    reader = _FormReader()
    reader.feed(html)
    return reader.forms


def field_names(form: dict) -> set[str]:
    return {field["name"] for field in form["fields"]}


def form_body(form: dict) -> dict[str, str | list[str]]:
    """What a browser would submit (no button), as a dict for the test client."""
    body: dict[str, list[str]] = {}
    for field in form["fields"]:
        if field["tag"] == "button" or field["type"] in ("submit", "button", "reset"):
            continue
        if field["type"] in ("checkbox", "radio") and not field["checked"]:
            continue
        if field["tag"] == "select":
            chosen = [value for value, selected in field["options"] if selected]
            value = chosen[0] if chosen else (field["options"][0][0] if field["options"] else "")
        else:
            value = field["value"]
        body.setdefault(field["name"], []).append(value)
    return {name: values[0] if len(values) == 1 else values for name, values in body.items()}


def open_deal_id(client, base: str) -> int:
    """The open deal's id, as the tap screen posts it."""
    page = client.get(base)
    assert page.status_code == 200, page.status_code
    match = re.search(r'name="deal" value="(\d+)"', page.content.decode())
    assert match, "no open deal on the tap screen"
    return int(match.group(1))


def file_deals(client, base: str, players: dict, actor: Actor, count: int) -> None:
    """File `count` podium deals: Alice, Cara and Ben go out, Dev is left holding cards."""
    for _ in range(count):
        deal = open_deal_id(client, base)
        for name in ("Alice", "Cara", "Ben"):
            deal_tap(deal_id=deal, player_id=players[name].pk, actor=actor)


def live_taps() -> int:
    return Tap.objects.filter(undone_at__isnull=True).count()


# --- 1. Page writes are throttled like API writes, in the same bucket ---------------------


@pytest.fixture
def three_writes_a_minute(no_throttling, settings, one_rate_window):
    """The `writes` rate at 3 a minute (after conftest's `no_throttling` turned it off),
    with empty counters before and after."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"auth": None, "writes": "3/min"},
    }
    caches["throttle"].clear()
    yield
    caches["throttle"].clear()


def page_tap(client, base: str, player) -> object:
    body = {"deal": open_deal_id(client, base), "player": player.pk, "key": uuid.uuid4().hex}
    return client.post(f"{base}tap/", body)


def page_undo(client, base: str) -> object:
    body = {"deal": open_deal_id(client, base), "key": uuid.uuid4().hex}
    return client.post(f"{base}undo/", body)


def assert_throttled_and_not_recorded(response, live_before: int) -> None:
    assert response.status_code == 429, (
        f"a write over the rate answered {response.status_code}, not 429"
    )
    assert "Retry-After" in response, "a 429 without Retry-After"
    assert int(response["Retry-After"]) >= 1
    assert live_taps() == live_before, "the refused write was recorded"


def test_scorer_link_page_writes_over_the_rate_are_throttled(
    client, table, actor, three_writes_a_minute
):
    """Defect 1: page writes through a scorer link are not throttled at all."""
    session, players = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    base = f"/s/{link.token}/"
    for response in (
        page_tap(client, base, players["Alice"]),
        page_undo(client, base),
        page_tap(client, base, players["Alice"]),
    ):
        assert response.status_code == 302, response.status_code
    before = live_taps()

    fourth = page_tap(client, base, players["Ben"])

    assert_throttled_and_not_recorded(fourth, before)


def test_member_page_writes_over_the_rate_are_throttled(member, table, three_writes_a_minute):
    """Defect 1: page writes by a signed-in member are not throttled at all."""
    session, players = table
    base = f"/sessions/{session.pk}/"
    for response in (
        page_tap(member, base, players["Alice"]),
        page_undo(member, base),
        page_tap(member, base, players["Alice"]),
    ):
        assert response.status_code == 302, response.status_code
    before = live_taps()

    fourth = page_undo(member, base)

    assert_throttled_and_not_recorded(fourth, before)


def test_scorer_link_api_and_page_writes_share_one_bucket(
    client, table, actor, three_writes_a_minute
):
    """Defect 1: API writes and page writes with the same link are counted together."""
    session, players = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    base = f"/s/{link.token}/"
    phone = client_with(f"Share {link.token}")
    deal = open_deal_id(client, base)
    for name in ("Alice", "Ben"):
        response = phone.post(f"/api/deals/{deal}/taps/", {"player": players[name].pk})
        assert response.status_code == 201, response.content
    assert page_undo(client, base).status_code == 302  # the third write of the minute
    before = live_taps()

    fourth = page_tap(client, base, players["Ben"])

    assert_throttled_and_not_recorded(fourth, before)


# --- 2. The correction form carries an idempotency key -----------------------------------


def test_correction_form_submitted_five_times_stores_one_correction(member, table, actor):
    """Defect 2: the deal page's correction form has no key, so five identical
    submits store five corrections."""
    session, players = table
    base = f"/sessions/{session.pk}/"
    file_deals(member, base, players, actor, 1)
    deal_url = f"{base}deals/1/"
    page = member.get(deal_url)
    (form,) = [
        form
        for form in forms_of(page.content.decode())
        if form["method"] == "post" and "place_1" in field_names(form)
    ]
    body = form_body(form)
    assert body.get("key"), f"the correction form has no idempotency key: {sorted(body)}"
    # Ben and Cara swap places; same body, same key, five times.
    body.update(place_2=str(players["Ben"].pk), place_3=str(players["Cara"].pk))
    body["reason"] = "Ben went out before Cara"

    for _ in range(5):
        response = member.post(form["action"] or deal_url, body)
        assert response.status_code in (200, 302), response.status_code

    assert Correction.objects.count() == 1


# --- 3. A hand added to a filed deal is applied once per key ------------------------------


def test_hand_added_three_times_with_one_key_is_applied_once(member, make_session):
    """Defect 3: the fingerprint of a hand addition includes the ids of the hand it
    replaces, so each retry of the same key replaces the hand again."""
    session, players = make_session(format="winner_takes_all", stake_rule="per_card")
    base = f"/sessions/{session.pk}/"
    deal = open_deal_id(member, base)
    assert (
        member.post(f"{base}tap/", {"deal": deal, "player": players["Alice"].pk}).status_code == 302
    )
    for name, cards in (("Ben", 5), ("Cara", 11), ("Dev", 1)):
        response = member.post(
            f"{base}event/",
            {"type": "hand", "deal": deal, "player": players[name].pk, "cards": cards},
        )
        assert response.status_code == 302, response.status_code
    page = member.get(f"{base}deals/1/").content.decode()
    (form,) = [
        form
        for form in forms_of(page)
        if form["method"] == "post" and form_body(form).get("type") == "hand"
    ]
    fields = form_body(form)
    assert fields.get("key"), "the hand form on the deal page has no key"
    addition = {
        "type": "hand",
        "deal": fields["deal"],
        "key": fields["key"],
        "player": players["Ben"].pk,
        "cards": 3,
    }

    for _ in range(3):
        response = member.post(form["action"], addition)
        assert response.status_code == 302, response.status_code

    assert Correction.objects.count() == 1
    ben = DealEvent.objects.filter(type="hand", player=players["Ben"], undone_at__isnull=True)
    assert ben.count() == 1
    assert ben.filter(cards=3).count() == 1


# --- 4. The transfer refusal names no player of another circle ----------------------------

STRANGERS = ("Zebediah Quixote", "Ottoline Vexby")


@pytest.fixture
def other_table(django_user_model):
    """Another account's circle and session, with players nobody else should see."""
    owner = django_user_model.objects.create_user(username="elsewhere", password="not-ours")
    circle = circle_create(owner=owner, name="Saturday table")
    session = session_create(
        circle=circle, name="Saturday", players=list(STRANGERS), actor=Actor(user=owner)
    )
    return {seat.player.name: seat.player.pk for seat in session.seats.select_related("player")}


def assert_no_stranger_named(text: str) -> None:
    leaked = [name for name in STRANGERS if name in text]
    assert not leaked, f"the refusal names players of another circle: {leaked}"


@pytest.mark.parametrize("undo", [False, True], ids=["paid", "unpaid"])
def test_transfer_refusal_on_member_page_names_no_other_circles_players(
    member, table, other_table, undo
):
    """Defect 4: `/settle/paid/` with another circle's player ids answers with their names."""
    session, _players = table
    body = {"payer": other_table[STRANGERS[0]], "payee": other_table[STRANGERS[1]]}
    body["amount"] = "1.00"
    if undo:
        body["undo"] = "1"

    response = member.post(f"/sessions/{session.pk}/settle/paid/", body)

    assert response.status_code in (400, 404, 409), response.status_code
    assert_no_stranger_named(response.content.decode())


@pytest.mark.parametrize("path", ["paid", "unpaid"])
def test_transfer_refusal_in_api_names_no_other_circles_players(user, table, other_table, path):
    """Defect 4: the API's settlement paid/unpaid refusal names another circle's players."""
    session, _players = table
    api = client_with(f"Token {api_token_create(user=user).key}")
    body = {"from": other_table[STRANGERS[0]], "to": other_table[STRANGERS[1]], "amount": "1.00"}

    response = api.post(f"/api/sessions/{session.pk}/settlement/{path}/", body)

    assert response.status_code in (400, 404, 409), response.status_code
    assert_no_stranger_named(response.json()["detail"])


@pytest.mark.parametrize("undo", [False, True], ids=["paid", "unpaid"])
def test_transfer_refusal_through_scorer_link_names_no_other_circles_players(
    client, table, actor, other_table, undo
):
    """Defect 4: a scorer link (page and API) can read any circle's player names by id."""
    session, _players = table
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    payer, payee = other_table[STRANGERS[0]], other_table[STRANGERS[1]]
    page_body = {"payer": payer, "payee": payee, "amount": "1.00"}
    if undo:
        page_body["undo"] = "1"

    page = client.post(f"/s/{link.token}/settle/paid/", page_body)
    api = client_with(f"Share {link.token}").post(
        f"/api/sessions/{session.pk}/settlement/{'unpaid' if undo else 'paid'}/",
        {"from": payer, "to": payee, "amount": "1.00"},
    )

    assert page.status_code in (400, 404, 409), page.status_code
    assert api.status_code in (400, 404, 409), api.status_code
    assert_no_stranger_named(page.content.decode())
    assert_no_stranger_named(api.json()["detail"])


# --- 5. The circle page counts the deals the standings count ------------------------------


def test_circle_page_does_not_count_a_deal_ended_empty(member, table, actor, circle):
    """Defect 5: a deal ended with End match before anyone went out is counted on the
    circle page (3 deals) though the standings count 2."""
    session, players = table
    base = f"/sessions/{session.pk}/"
    file_deals(member, base, players, actor, 2)
    deal_end(deal_id=open_deal_id(member, base), actor=actor)

    page = member.get(f"/circles/{circle.pk}/").content.decode()

    counts = re.findall(r"(\d+) deals?\b", page)
    assert counts == ["2"], f"the circle page says {counts} deals; the session counted 2"


# --- 6. One file name for the leaderboard CSV ---------------------------------------------


def test_leaderboard_csv_from_page_and_api_have_the_same_file_name(member, user, table):
    """Defect 6: the page names the CSV with its days, the API without."""
    session, _players = table
    query = "since=2026-01-01&until=2026-01-31"
    circle_id = session.circle_id

    page = member.get(f"/circles/{circle_id}/leaderboard.csv?{query}")
    api = client_with(f"Token {api_token_create(user=user).key}").get(
        f"/api/circles/{circle_id}/leaderboard.csv?{query}"
    )

    assert (page.status_code, api.status_code) == (200, 200)
    assert page["Content-Disposition"] == api["Content-Disposition"]
    assert page.content == api.content


# --- 7. Every page form that writes carries an idempotency key ----------------------------

NOT_WRITES = ("/i18n/setlang/", "/theme/", "/accounts/logout/")


def test_every_session_page_form_that_writes_has_a_key(member, make_session, actor):
    """Defect 7: some page forms that write (correction, settle up, share, End match)
    post no idempotency key."""
    options = scoring.Options(
        penalties=True, guaransheed=True, got_to_get_in=True, instant_wins=True
    )
    session, players = make_session(stake_rule="loser_pays", options=options)
    base = f"/sessions/{session.pk}/"
    file_deals(member, base, players, actor, 1)
    share_link_create(session_id=session.pk, role="scorer", actor=actor)  # revoke + make forms
    pages = ["", "deals/1/", "players/", "settle/", "share/", "end/"]

    lacking = []
    for page in pages:
        response = member.get(f"{base}{page}")
        assert response.status_code == 200, (page, response.status_code)
        for form in forms_of(response.content.decode()):
            if form["method"] != "post" or form["action"] in NOT_WRITES:
                continue
            if "key" not in field_names(form):
                lacking.append(f"{base}{page}: form to {form['action'] or '(this page)'}")

    assert not lacking, "page forms that write without a key:\n" + "\n".join(lacking)
