"""Bad input (SPEC 8): every refusal is a 4xx with a sentence, and changes nothing.

Each case is `(body, status, detail)`; a body or detail may be a function of the table
(`t`, a `conftest.Table`) when it needs a player id. A `Raw` body is sent as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import pytest

from tests.api.conftest import db_state
from tracker.models import Circle, Player

pytestmark = pytest.mark.django_db

EVENT_TYPES = "two_beaten, cutup_beaten, hand, guaransheed, instant_win"
FLOAT_STAKE = (
    'stake: Send the stake as a decimal string such as "1.50", not a JSON number with a '
    "fraction: that is a float, and floats cannot hold money exactly."
)
NOT_AN_OBJECT = "The request body must be a JSON object."
NOT_JSON = "The request body is not valid JSON."
MISSING = object()


@dataclass(frozen=True)
class Raw:
    text: str


def resolve(value, table):
    return value(table) if callable(value) else value


def send(api, method, url, body, table):
    body = resolve(body, table)
    if isinstance(body, Raw):
        return getattr(api, method)(url, data=body.text, content_type="application/json")
    return getattr(api, method)(url, body)


def refused(api, method, url, body, table, status, detail):
    before = db_state()
    response = send(api, method, url, body, table)
    assert (response.status_code, response.json()["detail"]) == (
        status,
        resolve(detail, table),
    )
    assert db_state() == before


# --- Starting a session -------------------------------------------------------------------

SESSION_CASES = {
    "stake 0": ({"stake": "0"}, "The stake must be more than 0."),
    "stake -1": ({"stake": "-1"}, "The stake must be more than 0."),
    "stake NaN": ({"stake": "NaN"}, "The stake must be a number such as 1.00."),
    # What Python's Decimal reads but the schema's pattern ^[0-9]+(\.[0-9]+)?$ does not.
    "stake 1_000": ({"stake": "1_000"}, "The stake must be a number such as 1.00."),
    "stake Arabic-Indic one": ({"stake": "\u0661"}, "The stake must be a number such as 1.00."),
    "stake 1e6": ({"stake": "1e6"}, "The stake must be a number such as 1.00."),
    "stake with spaces": ({"stake": " 1.00 "}, "The stake must be a number such as 1.00."),
    "stake .5": ({"stake": ".5"}, "The stake must be a number such as 1.00."),
    "stake Infinity": ({"stake": "Infinity"}, "The stake must be a number such as 1.00."),
    "stake 1.234": ({"stake": "1.234"}, "The stake can have at most 2 decimal places."),
    "stake 1000001": ({"stake": "1000001"}, "The stake can be at most 1,000,000."),
    "stake abc": ({"stake": "abc"}, "The stake must be a number such as 1.00."),
    "stake float": ({"stake": 1.5}, FLOAT_STAKE),
    "stake float whole": ({"stake": 1.0}, FLOAT_STAKE),
    "stake bool": ({"stake": True}, 'stake: The stake is a decimal string such as "1.50".'),
    "stake list": ({"stake": ["1"]}, 'stake: The stake is a decimal string such as "1.50".'),
    "currency US": ({"currency": "US"}, "The currency is a 3-letter code such as USD, EUR or VND."),
    "currency usd1": (
        {"currency": "usd1"},
        "The currency is a 3-letter code such as USD, EUR or VND.",
    ),
    # SPEC 8: an ISO code; "XYZ" made a session in XYZ (session 26's money review).
    "currency XYZ": (
        {"currency": "XYZ"},
        "XYZ is no currency's code: use one such as USD, EUR or VND.",
    ),
    "no players": ({"players": []}, "A table has 2 to 8 players."),
    "one player": ({"players": ["Alice"]}, "A table has 2 to 8 players."),
    "nine players": (
        {"players": [f"P{n}" for n in range(9)]},
        "players: A table has 2 to 8 players.",
    ),
    "seated twice": ({"players": ["Alice", "alice"]}, "Alice is seated twice."),
    "unknown player id": (
        {"players": [987654, "Ben"]},
        "There is no player 987654 in Friday table.",
    ),
    "player of another circle": (
        lambda t: {"players": [t.elsewhere, "Ben"]},
        lambda t: f"There is no player {t.elsewhere} in Friday table.",
    ),
    "player as a float": (
        {"players": [1.5, "Ben"]},
        "players.0: Each player is an id (a whole number) or a name (text).",
    ),
    "players not a list": (
        {"players": "Alice"},
        'players: Expected a list of items but got type "str".',
    ),
    "format unknown": ({"format": "square"}, 'format: "square" is not a valid choice.'),
    "per card with podium": (
        {"stake_rule": "per_card"},
        "Pay by the card and Pro-Play end the deal at the first player out, so they go with "
        "winner takes all, not a podium.",
    ),
    "money options without stakes": (
        {"stake_rule": "none", "options": {"penalties": True}},
        "With no stakes no money moves: switch off penalties, Guaransheed and Got to Get In, "
        "or pick a stake rule.",
    ),
    "instant wins with trading": (
        {"options": {"instant_wins": True, "trading": True}},
        "Instant wins and trading cannot be on together: traded cards would make an "
        "instant-win hand.",
    ),
    "instant wins with two packs": (
        {"players": ["Alice", "Ben", "Cara", "Dev", "Eve"], "options": {"instant_wins": True}},
        "With 5 to 8 players two packs are dealt, and two packs have no instant wins: switch "
        "instant wins off, or seat 2 to 4 players.",
    ),
    "5 consecutive pairs without instant wins": (
        {"options": {"five_consecutive_pairs": True}},
        "5 consecutive pairs is an instant-win hand: switch on instant wins too.",
    ),
    "options not an object": (
        {"options": "all"},
        "options: Invalid data. Expected a dictionary, but got str.",
    ),
    "hand size 14 for four": ({"hand_size": 14}, "With 4 players each is dealt 13 cards."),
    "hand size not a number": ({"hand_size": "x"}, "hand_size: A valid integer is required."),
    "name missing": ({"name": MISSING}, "name: This field is required."),
    "name blank": ({"name": "  "}, "The session needs a name."),
    "name too long": ({"name": "x" * 81}, "The session's name can be at most 80 characters."),
    "name with a null character": ({"name": "a\x00b"}, "name: Null characters are not allowed."),
    "circle missing": ({"circle": MISSING}, "circle: This field is required."),
    "circle not a number": ({"circle": "abc"}, "circle: A valid integer is required."),
    "circle of someone else": (
        lambda t: {"circle": t.elsewhere_circle},
        lambda t: f"There is no circle {t.elsewhere_circle} of yours.",
    ),
    "circle id too large": (
        {"circle": 10**30},
        "circle: Ensure this value is less than or equal to 9223372036854775807.",
    ),
}


@pytest.fixture
def newcomer(api, circle, stranger):
    """What a session body is checked against: the circle, and someone else's circle."""
    theirs = Circle.objects.create(owner=stranger, name="Elsewhere")
    theirs.members.add(stranger)

    class Context:
        elsewhere_circle = theirs.pk
        elsewhere = Player.objects.create(circle=theirs, name="Zed").pk

    return Context()


@pytest.mark.parametrize("case", SESSION_CASES.values(), ids=SESSION_CASES.keys())
def test_session_create_refuses(api, circle, newcomer, case):
    change, detail = case
    body = {"circle": circle.pk, "name": "Friday", "players": ["Alice", "Ben", "Cara", "Dev"]}
    for field, value in resolve(change, newcomer).items():
        if value is MISSING:
            del body[field]
        else:
            body[field] = value

    refused(api, "post", "/api/sessions/", body, newcomer, 400, detail)


@pytest.mark.parametrize(
    "body, detail",
    [
        (Raw("[1, 2]"), NOT_AN_OBJECT),
        (Raw('"Friday"'), NOT_AN_OBJECT),
        (Raw('{"circle": 1,'), NOT_JSON),
        (Raw("NaN"), NOT_JSON),
        (Raw("[" * 60_000), "The request body is nested too deeply."),  # under the cap
    ],
    ids=["list", "string", "truncated", "bare NaN", "nested too deep"],
)
def test_session_create_refuses_a_body_that_is_not_a_json_object(api, circle, body, detail):
    refused(api, "post", "/api/sessions/", body, None, 400, detail)


# --- Tapping ------------------------------------------------------------------------------


@pytest.fixture
def tapped(start, circle):
    """Alice is out (1st) on the open deal; Eve is in the circle but not at the table."""
    table = start()
    table.tap(table.deal, "Alice")
    table.eve = Player.objects.create(circle=circle, name="Eve").pk
    return table


TAP_CASES = {
    "no player": ({}, "player: This field is required."),
    "player not a number": ({"player": "abc"}, "player: A valid integer is required."),
    "player null": ({"player": None}, "player: This field may not be null."),
    "player 0": ({"player": 0}, "player: Ensure this value is greater than or equal to 1."),
    "player not in the circle": ({"player": 987654}, "Player 987654 is not playing this deal."),
    "player not at the table": (
        lambda t: {"player": t.eve},
        lambda t: f"Player {t.eve} is not playing this deal.",
    ),
    "player already out": (lambda t: {"player": t.p["Alice"]}, "Alice is already out (1st)."),
    "got to get in off": (
        lambda t: {"player": t.p["Ben"], "not_played": [t.p["Cara"]]},
        "Got to Get In is off for this session.",
    ),
    "not played not a list": (
        lambda t: {"player": t.p["Ben"], "not_played": "Cara"},
        'not_played: Expected a list of items but got type "str".',
    ),
    "loser tap too early": (
        lambda t: {"player": t.p["Ben"], "loser": True},
        "Tap the loser once the scoring places are filled.",
    ),
    "loser not a boolean": (
        lambda t: {"player": t.p["Ben"], "loser": "maybe"},
        "loser: Must be a valid boolean.",
    ),
    "body a list": (Raw("[1]"), NOT_AN_OBJECT),
    "body a number": (Raw("5"), NOT_AN_OBJECT),
    "body not json": (Raw('{"player": '), NOT_JSON),
}


@pytest.mark.parametrize("case", TAP_CASES.values(), ids=TAP_CASES.keys())
def test_tap_refuses(api, tapped, case):
    body, detail = case

    refused(api, "post", f"/api/deals/{tapped.deal}/taps/", body, tapped, 400, detail)


def test_tap_on_a_filed_deal_is_a_conflict(api, start):
    table = start()
    deal = table.deal
    table.tap(deal, "Alice", "Cara", "Ben")

    refused(
        api,
        "post",
        f"/api/deals/{deal}/taps/",
        {"player": table.p["Dev"]},
        table,
        409,
        "This deal is already filed; correct it instead.",
    )


def test_tap_on_an_ended_deal_is_a_conflict(api, start):
    table = start()
    deal = table.deal
    table.tap(deal, "Alice")
    api.post(f"/api/deals/{deal}/end/")

    refused(
        api,
        "post",
        f"/api/deals/{deal}/taps/",
        {"player": table.p["Ben"]},
        table,
        409,
        "This deal was ended with End match.",
    )


@pytest.mark.parametrize("deal", [987654, 10**30], ids=["unknown", "beyond any id"])
def test_tap_on_an_unknown_deal_is_not_found(api, start, deal):
    table = start()

    refused(
        api,
        "post",
        f"/api/deals/{deal}/taps/",
        {"player": table.p["Alice"]},
        table,
        404,
        f"There is no deal {deal}.",
    )


# --- Events -------------------------------------------------------------------------------


@pytest.fixture
def by_the_card(start):
    """Pay by the card, penalties on: Alice is out first, the hands are still to come."""
    table = start(format="winner_takes_all", stake_rule="per_card", options={"penalties": True})
    table.tap(table.deal, "Alice")
    return table


def hand(player, **counts):
    return lambda t: {"type": "hand", "player": t.p[player], **counts}


EVENT_CASES = {
    "unknown type": (
        {"type": "nope"},
        f'The event type is "nope"; it must be one of {EVENT_TYPES}.',
    ),
    "no type": ({"player": 1}, f"The event type is missing; it must be one of {EVENT_TYPES}."),
    "type not text": ({"type": 5}, f"The event type is missing; it must be one of {EVENT_TYPES}."),
    "body a list": (Raw("[]"), "An event is a JSON object with a type."),
    "body not json": (Raw("{"), NOT_JSON),
    "cards above the hand size": (hand("Ben", cards=14), "Cards left must be 0 to 13."),
    "cards negative": (
        hand("Ben", cards=-1),
        "cards: Ensure this value is greater than or equal to 0.",
    ),
    "cards absurd": (
        hand("Ben", cards=5000),
        "cards: Ensure this value is less than or equal to 1000.",
    ),
    "cards not a number": (hand("Ben", cards="five"), "cards: A valid integer is required."),
    "cards missing": (hand("Ben"), "cards: This field is required."),
    "hand of the winner": (hand("Alice", cards=0), "Alice went out and holds no cards."),
    "unused cards beyond the hand": (
        hand("Ben", cards=2, black_twos=3),
        "The unused 2s, cutups and bombs do not fit in the cards left.",
    ),
    "hand of a stranger": (
        {"type": "hand", "player": 987654, "cards": 3},
        "Player 987654 is not playing this deal.",
    ),
    "four twos beaten": (
        lambda t: {
            "type": "two_beaten",
            "by": t.p["Ben"],
            "owner": t.p["Cara"],
            "with": "bomb",
            "black": 2,
            "red": 2,
        },
        "One play beats 1 to 3 twos (four 2s cannot be beaten).",
    ),
    "beaten with a sword": (
        lambda t: {"type": "two_beaten", "by": t.p["Ben"], "owner": t.p["Cara"], "with": "sword"},
        'with: "sword" is not a valid choice.',
    ),
    "beating your own 2": (
        lambda t: {
            "type": "two_beaten",
            "by": t.p["Ben"],
            "owner": t.p["Ben"],
            "with": "bomb",
            "red": 1,
        },
        "A player cannot beat their own cards.",
    ),
    "cutup beaten with nothing to double": (
        lambda t: {"type": "cutup_beaten", "by": t.p["Cara"], "owner": t.p["Ben"]},
        "Ben has no cutup that beat a 2 in this deal: there is nothing to double.",
    ),
    "guaransheed off": (
        lambda t: {"type": "guaransheed", "player": t.p["Ben"], "approved": True},
        "Guaransheed is off for this session.",
    ),
    "guaransheed without approval": (
        lambda t: {"type": "guaransheed", "player": t.p["Ben"]},
        "approved: This field is required.",
    ),
    "instant win of an unknown kind": (
        lambda t: {"type": "instant_win", "player": t.p["Ben"], "kind": "royal"},
        'kind: "royal" is not a valid choice.',
    ),
    "instant wins off": (
        lambda t: {"type": "instant_win", "player": t.p["Ben"], "kind": "dragon"},
        "Instant wins are off for this session.",
    ),
}


@pytest.mark.parametrize("case", EVENT_CASES.values(), ids=EVENT_CASES.keys())
def test_event_refuses(api, by_the_card, case):
    body, detail = case

    refused(api, "post", f"/api/deals/{by_the_card.deal}/events/", body, by_the_card, 400, detail)


def test_cards_up_to_17_with_three_players_dealt_17(api, start):
    table = start(
        players=("X", "Y", "Z"), format="winner_takes_all", stake_rule="per_card", hand_size=17
    )
    deal = table.deal
    table.tap(deal, "X")

    refused(
        api,
        "post",
        f"/api/deals/{deal}/events/",
        hand("Y", cards=18),
        table,
        400,
        "Cards left must be 0 to 17.",
    )
    assert table.event(deal, **hand("Y", cards=17)(table))["status"] == "open"


def test_guaransheed_after_the_first_tap_is_refused(api, start):
    table = start(options={"guaransheed": True})
    table.tap(table.deal, "Alice")

    refused(
        api,
        "post",
        f"/api/deals/{table.deal}/events/",
        lambda t: {"type": "guaransheed", "player": t.p["Ben"], "approved": True},
        table,
        400,
        "A Guaransheed is declared before the first player goes out.",
    )


# --- Corrections, payments, links, names ----------------------------------------------------


@pytest.fixture
def filed(start):
    table = start()
    table.filed = table.deal
    table.tap(table.filed, "Alice", "Cara", "Ben")
    return table


CORRECTION_CASES = {
    "a player twice": (
        lambda t: {"taps": [t.p["Alice"], t.p["Alice"], t.p["Ben"]]},
        "A player appears twice in the tap order.",
    ),
    "taps not a list": ({"taps": "Alice"}, 'taps: Expected a list of items but got type "str".'),
    "a stranger in the order": (
        lambda t: {"taps": [987654, t.p["Alice"], t.p["Ben"]]},
        "That correction does not add up: Player 987654 is not playing this deal.",
    ),
    "an unknown event": (
        {"add_events": [{"type": "zzz"}]},
        f'add_events.0: The event type is "zzz"; it must be one of {EVENT_TYPES}.',
    ),
    "a reason too long": (
        {"reason": "x" * 201},
        "reason: Ensure this field has no more than 200 characters.",
    ),
}


@pytest.mark.parametrize("case", CORRECTION_CASES.values(), ids=CORRECTION_CASES.keys())
def test_correction_refuses(api, filed, case):
    body, detail = case

    refused(api, "post", f"/api/deals/{filed.filed}/correction/", body, filed, 400, detail)


PAYMENT_CASES = {
    "amount a float": (
        1.5,
        'amount: Send the amount as a decimal string such as "1.50", not a JSON number with '
        "a fraction: that is a float, and floats cannot hold money exactly.",
    ),
    "amount not a number": ("abc", 'amount: The amount must be a number such as "1.50".'),
    "amount zero": ("0", "amount: The amount must be more than 0."),
    "amount infinite": ("Infinity", 'amount: The amount must be a number such as "1.50".'),
    "amount huge": ("1" + "0" * 17, "amount: The amount is too large."),
    "amount 1e6": ("1e6", 'amount: The amount must be a number such as "1.50".'),
    "amount 1_000": ("1_000", 'amount: The amount must be a number such as "1.50".'),
    "amount Arabic-Indic one": ("\u0661", 'amount: The amount must be a number such as "1.50".'),
    "amount with spaces": (" 1.00", 'amount: The amount must be a number such as "1.50".'),
    "amount too precise": ("1.0001", "amount: The amount can have at most 3 decimal places."),
    "amount not in the settlement": (
        "2.00",
        "There is no transfer from Dev to Alice of 2.00 in this session's settlement.",
    ),
}


@pytest.mark.parametrize("case", PAYMENT_CASES.values(), ids=PAYMENT_CASES.keys())
def test_mark_paid_refuses(api, filed, case):
    amount, detail = case
    body = lambda t: {"from": t.p["Dev"], "to": t.p["Alice"], "amount": amount}  # noqa: E731

    refused(api, "post", f"/api/sessions/{filed.id}/settlement/paid/", body, filed, 400, detail)


def test_mark_paid_without_a_payee_is_refused(api, filed):
    refused(
        api,
        "post",
        f"/api/sessions/{filed.id}/settlement/paid/",
        lambda t: {"from": t.p["Dev"], "amount": "1.00"},
        filed,
        400,
        "to: This field is required.",
    )


def test_share_link_of_an_unknown_role_is_refused(api, filed):
    refused(
        api,
        "post",
        f"/api/sessions/{filed.id}/share-links/",
        {"role": "admin"},
        filed,
        400,
        'role: "admin" is not a valid choice.',
    )


@pytest.mark.parametrize(
    "body, detail",
    [
        ({}, "name: This field is required."),
        ({"name": None}, "name: This field may not be null."),
        ({"name": "x" * 41}, "The player's name can be at most 40 characters."),
        ({"name": "\x00"}, "name: Null characters are not allowed."),
    ],
    ids=["missing", "null", "too long", "null character"],
)
def test_player_create_refuses(api, circle, body, detail):
    refused(api, "post", f"/api/circles/{circle.pk}/players/", body, None, 400, detail)


def test_an_unknown_option_is_refused_naming_the_options(api, circle):
    before = db_state()

    response = api.post(
        "/api/sessions/",
        {
            "circle": circle.pk,
            "name": "Friday",
            "players": ["Alice", "Ben"],
            "options": {"penalty": True, "guaransheed": True},
        },
    )

    assert response.status_code == 400
    assert response.json()["detail"] == (
        "options: penalty: no such option; the options are guaransheed, got_to_get_in, "
        "instant_wins, trading, penalties, five_consecutive_pairs."
    )
    assert db_state() == before


def test_the_schema_closes_the_options(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/json").json()

    assert schema["components"]["schemas"]["OptionsIO"]["additionalProperties"] is False


@pytest.mark.parametrize("player", ["\u0663", "\uff13", "1e3", "1.5", "NaN", " 3", "3\x00"])
def test_an_id_is_ascii_digits_or_a_json_number(api, start, player):
    table = start()
    before = db_state()

    response = api.post(f"/api/deals/{table.deal}/taps/", {"player": player})

    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert db_state() == before


def test_an_id_written_as_a_json_fraction_is_refused_wherever_an_id_goes(api, start, circle):
    """docs/api.md: ids are JSON integers. `1.0` was read as 1 by every field that takes
    one id (the `players` list already refused it): a tap, an event, a payment, a new
    session's circle, a circle's new owner. Each is now 400 and changes nothing."""
    table = start()
    alice, ben = table.p["Alice"], table.p["Ben"]
    before = db_state()
    for path, body in [
        (f"/api/deals/{table.deal}/taps/", {"player": float(alice)}),
        (f"/api/sessions/{table.id}/deals/1/taps/", {"player": float(alice)}),
        (f"/api/deals/{table.deal}/events/", {"type": "hand", "player": float(ben), "cards": 3}),
        (
            f"/api/sessions/{table.id}/payments/",
            {"from": float(alice), "to": float(ben), "amount": "1.00"},
        ),
        ("/api/sessions/", {"circle": float(circle.pk), "name": "X", "players": [alice, ben]}),
        (f"/api/circles/{circle.pk}/owner/", {"user": float(circle.owner_id)}),
    ]:
        response = api.post(path, body)
        assert response.status_code == 400, (path, response.status_code, response.content)
        assert response.json()["code"] == "invalid", (path, response.json())
        assert db_state() == before, path


def test_a_field_the_body_does_not_take_is_refused_naming_the_ones_it_does(api, start, circle):
    """A misspelt field was left out quietly: a correction sent as `remove_events` was
    recorded as a correction that changed nothing, answered 200. Every request body now
    refuses a key it does not know (400 `invalid`, the sentence naming the fields), and
    changes nothing."""
    table = start()
    alice, ben, cara = table.p["Alice"], table.p["Ben"], table.p["Cara"]
    filed = table.deal
    table.tap(filed, "Alice", "Cara", "Ben")
    before = db_state()
    for path, body, unknown, fields in [
        (
            f"/api/deals/{filed}/correction/",
            {"remove_events": [1], "reason": "typo"},
            "remove_events",
            "taps, loser, add_events, reason",
        ),
        (
            f"/api/deals/{table.deal}/taps/",
            {"player": alice, "lost": True},
            "lost",
            "player, not_played, loser, out_before",
        ),
        (
            f"/api/deals/{table.deal}/events/",
            {"type": "hand", "player": ben, "cards": 3, "card": 2},
            "card",
            "type, player, cards, black_twos, red_twos, cutups, bombs",
        ),
        (
            f"/api/sessions/{table.id}/payments/",
            {"from": cara, "to": alice, "amount": "1.00", "note": "cash"},
            "note",
            "from, to, amount, currency",
        ),
        (
            "/api/sessions/",
            {"circle": circle.pk, "name": "X", "players": [alice, ben], "stakes": "5"},
            "stakes",
            "circle, name, players, format, stake_rule, stake, currency, hand_size, options",
        ),
        (f"/api/circles/{circle.pk}/players/", {"name": "Eve", "nick": "E"}, "nick", "name"),
        (f"/api/sessions/{table.id}/share-links/", {"role": "viewer", "days": 3}, "days", "role"),
    ]:
        response = api.post(path, body)

        assert response.status_code == 400, (path, response.status_code, response.content)
        assert response.json() == {
            "detail": f"{unknown}: no such field; the fields are {fields}.",
            "code": "invalid",
            "fields": {unknown: [f"no such field; the fields are {fields}."]},
        }, path
        assert db_state() == before, path


def test_a_field_only_shown_is_known_and_ignored(api, start):
    """An event sent back as the API shows it (with its `id` and `seq`) is still taken."""
    table = start()
    response = api.post(
        f"/api/deals/{table.deal}/events/",
        {"type": "hand", "player": table.p["Ben"], "cards": 3, "id": 5, "seq": 1},
    )

    assert response.status_code == 201, response.content


def test_a_form_body_s_csrf_token_is_not_a_field(api, circle):
    """A browsable API form posts its CSRF token beside the fields: not refused."""
    response = api.post(
        f"/api/circles/{circle.pk}/players/",
        "name=Eve&csrfmiddlewaretoken=abc",
        content_type="application/x-www-form-urlencoded",
    )

    assert response.status_code == 201, response.content
    assert response.json()["name"] == "Eve"


def test_the_schema_closes_every_request_body(api):
    schemas = api.get("/api/schema/", HTTP_ACCEPT="application/json").json()["components"][
        "schemas"
    ]

    inputs = [
        name
        for name in schemas
        if name.endswith(("Input", "IO", "Event")) and name != "DealEvent"  # one of the events
    ]
    assert len(inputs) >= 17
    assert all(schemas[name]["additionalProperties"] is False for name in inputs), inputs


MOST_MONEY = Decimal(10) ** 17  # what a money column (20 digits, 3 places) holds


def big_pro_play_table(start):
    """Two players, Pro-Play winner takes all at a stake of 1,000,000: a few dozen cutups
    beaten come to more money than a column holds."""
    return start(
        players=("Alice", "Ben"),
        stake_rule="pro_play",
        format="winner_takes_all",
        stake="1000000",
        options={"penalties": True},
    )


def cutups_up_to_the_limit(api, table):
    """A 2 cut on the open deal, then cutups beaten back and forth until the next one is
    refused: (how many were taken, the refusal, what the database held before it)."""
    alice, ben = table.p["Alice"], table.p["Ben"]
    events = f"/api/deals/{table.deal}/events/"
    chopped = {"type": "two_beaten", "by": alice, "owner": ben, "with": "cutup", "black": 1}
    assert api.post(events, chopped).status_code == 201
    for n in range(60):
        by, owner = (ben, alice) if n % 2 == 0 else (alice, ben)
        before = db_state()
        answer = api.post(events, {"type": "cutup_beaten", "by": by, "owner": owner})
        if answer.status_code != 201:
            break
    return n, answer, before


def test_a_deal_that_comes_to_more_money_than_a_column_holds_is_refused(api, start):
    """Each cutup beaten doubles the one before: sixty at a stake of 1,000,000 came to
    more than a money column holds, and filing the deal was PostgreSQL's numeric overflow,
    a 500 (session 26's money review). The event that would pass it is a 400 with a
    sentence, and changes nothing."""
    table = big_pro_play_table(start)
    n, answer, before = cutups_up_to_the_limit(api, table)

    assert 30 < n < 60  # 2**n times the stake: past 10**17 near the 37th
    assert answer.status_code == 400, answer.content
    assert answer.json() == {
        "detail": "That would make one payment in this deal more money than can be recorded. "
        "Check the deal's events: each cutup beaten doubles the one before.",
        "code": "too_much_money",
    }
    assert db_state() == before
    alice, ben = table.p["Alice"], table.p["Ben"]
    assert api.post(f"/api/deals/{table.deal}/taps/", {"player": alice}).status_code == 201
    filed = api.post(
        f"/api/deals/{table.deal}/events/", {"type": "hand", "player": ben, "cards": 1}
    )
    assert filed.status_code == 201, filed.content  # the deal as it stands files


def test_a_running_total_past_what_a_column_holds_is_refused(api, start):
    """Every deal's lines under 10**17, but a player's net over the session adds them:
    three such deals took Alice's running total past what its column holds. PostgreSQL
    refused the third filing as a 500; SQLite stored it, and every standings read after
    was a 500 (session 27's review). The filing is a 400 with a sentence instead, and
    changes nothing; the standings still read."""
    table = big_pro_play_table(start)
    alice, ben = table.p["Alice"], table.p["Ben"]
    answers = []
    for _ in range(3):
        cutups_up_to_the_limit(api, table)
        assert api.post(f"/api/deals/{table.deal}/taps/", {"player": alice}).status_code == 201
        before = db_state()
        filed = api.post(
            f"/api/deals/{table.deal}/events/", {"type": "hand", "player": ben, "cards": 1}
        )
        answers.append(filed.status_code)
        if filed.status_code != 201:
            break

    assert answers == [201, 201, 400], answers
    assert filed.json() == {
        "detail": "That would bring a player's money over this session to more than can be "
        "recorded. Check the deal's events: each cutup beaten doubles the one before.",
        "code": "too_much_money",
    }
    assert db_state() == before
    standings = api.get(f"/api/sessions/{table.id}/standings/")
    assert standings.status_code == 200
    assert all(abs(Decimal(row["net"])) < MOST_MONEY for row in standings.json()["rows"])


def test_a_currency_is_any_iso_code_in_either_case(api, start):
    for typed, kept in (("vnd", "VND"), ("CHF", "CHF"), ("xxx", "XXX")):
        assert start(currency=typed).session["currency"] == kept
