"""Some answers are kept by the session's rows' counter (`answers.ROWS`), not by every
change: the API's standings, a closed deal's detail, the settle-up and the standings
page's fragment (its version written in as served). A random evening
of taps, undos, events, corrections, payments, payment details, renames and seat
changes, and after each step every such answer is held to one computed afresh with
nothing kept, for the scorer's token and for a viewer's link."""

from __future__ import annotations

import random

import pytest
from django.test import Client

from tests.api.conftest import client_with
from tests.views.helpers import htmx, shows
from tracker import answers
from tracker.models import Deal, Session
from tracker.services import share_link_create

pytestmark = pytest.mark.django_db

NAMES = ("Alice", "Ben", "Cara", "Dev", "Eve")


def _correct(rng: random.Random, api, session_id: int) -> str:
    """A correction of a closed deal: its taps again in the same order (records replaced,
    no total moved) or in another, or a hand added."""
    closed = list(Deal.objects.filter(session_id=session_id).exclude(status="open"))
    if not closed:
        return "no correction: nothing closed yet"
    deal = rng.choice(closed)
    shown = api.get(f"/api/deals/{deal.pk}/").json()
    order = [tap["player"] for tap in shown["taps"] if not tap["loser"]]
    how = rng.choice(("same order", "other order", "hand"))
    if how == "other order":
        rng.shuffle(order)
    body: dict = {"taps": order, "reason": how}
    # Cards left in the hand of one who did not go out, whose hand is not recorded yet.
    counted = {event.get("player") for event in shown["events"] if event["type"] == "hand"}
    holding = [
        seat["player"]
        for seat in shown["players"]
        if seat["player"] not in order and seat["player"] not in counted
    ]
    if how == "hand" and holding:
        body = {"add_events": [{"type": "hand", "player": holding[0], "cards": 3}]}
    elif how == "hand":
        how, body = "same order", {"taps": order, "reason": "same order"}
    corrected = api.post(f"/api/deals/{deal.pk}/correction/", body)
    assert corrected.status_code == 200, (body, corrected.json())
    return f"correct deal {deal.number}: {how}"


def version_of(session_id: int) -> int:
    return Session.objects.values_list("version", flat=True).get(pk=session_id)


BANK = {"bank_bin": "970436", "account_number": "0011 0019 32418"}


def _pay(rng: random.Random, api, table) -> str:
    """Money moving at the table: a payment recorded or cancelled, a transfer marked paid
    or unpaid, a payee's details given."""
    session = table.id
    how = rng.choice(("record", "cancel", "paid", "unpaid", "details"))
    if how == "record":
        payer, payee = rng.sample(list(table.p.values()), 2)
        amount = rng.choice(("0.50", "1.50", "3.00"))
        api.post(
            f"/api/sessions/{session}/payments/", {"from": payer, "to": payee, "amount": amount}
        )
    elif how == "cancel":
        payments = api.get(f"/api/sessions/{session}/settlement/").json()["payments"]
        live = [payment["id"] for payment in payments if not payment["cancelled"]]
        if live:
            api.post(f"/api/sessions/{session}/payments/{rng.choice(live)}/cancel/")
    elif how in ("paid", "unpaid"):
        transfers = api.get(f"/api/sessions/{session}/settlement/").json()["transfers"]
        if transfers:
            transfer = rng.choice(transfers)
            api.post(
                f"/api/sessions/{session}/settlement/{how}/",
                {key: transfer[key] for key in ("from", "to", "amount")},
            )
    else:
        player = rng.choice(list(table.p.values()))
        name = f"NGUYEN {rng.randrange(100)}"
        api.put(f"/api/players/{player}/payment-details/", {**BANK, "account_name": name})
    return f"pay: {how}"


def _step(rng: random.Random, table, api, *, last: bool) -> str:
    """One thing a table does; what it was (for the failure's message). End match ends
    the session, so it is the evening's last step."""
    deal = table.deal
    if last:
        assert api.post(f"/api/deals/{deal}/end/").status_code == 200
        return "end match"
    shown = api.get(f"/api/deals/{deal}/").json()
    seated = [player["player"] for player in shown["players"]]
    out = {tap["player"] for tap in shown["taps"]}
    choice = rng.random()
    if choice < 0.45:
        player = rng.choice([p for p in seated if p not in out] or seated)
        api.post(f"/api/deals/{deal}/taps/", {"player": player})
        return f"tap {table.name[player]}"
    if choice < 0.55:
        api.post(f"/api/deals/{deal}/undo/")
        return "undo"
    if choice < 0.62:
        by, owner = rng.sample(seated, 2)
        api.post(
            f"/api/deals/{deal}/events/",
            {"type": "two_beaten", "by": by, "owner": owner, "with": "bomb", "black": 1},
        )
        return "two beaten"
    if choice < 0.7:
        return _correct(rng, api, table.id)
    if choice < 0.85:
        return _pay(rng, api, table)
    if choice < 0.9:
        player = rng.choice(list(table.p.values()))
        name = f"{rng.choice(NAMES)} {rng.randrange(100)}"
        api.patch(f"/api/players/{player}/", {"name": name})
        return f"rename {player} to {name}"
    players = rng.sample(list(table.p.values()), rng.choice((3, 4, 4)))
    api.put(f"/api/sessions/{table.id}/players/", {"players": players})
    return "seats"


def _paths(table) -> list[str]:
    """The standings, the settle-up, and the session's last four deals (the open one
    with them)."""
    deals = Deal.objects.filter(session_id=table.id).order_by("-number")[:4]
    return [
        f"/api/sessions/{table.id}/standings/",
        f"/api/sessions/{table.id}/settlement/",
        *(f"/api/deals/{deal.pk}/" for deal in deals),
    ]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_answers_kept_by_the_rows_counter_are_always_the_answers(start, api, actor, seed):
    table = start(players=NAMES, stake="1.5", options={"penalties": True})
    viewer = share_link_create(session_id=table.id, role="viewer", actor=actor)
    readers = (api, client_with(f"Share {viewer.token}"))
    rng = random.Random(seed)
    steps = []
    # The standings page by the viewer's link: a phone just opened (it shows no rows yet)
    # and one that shows the rows as they stood before the step.
    page, fragment = Client(), f"/s/{viewer.token}/standings/"
    for step in range(45):
        for path in _paths(table):
            for reader in readers:
                reader.get(path)  # kept as they are now
        before = shows(page.get(fragment, {"version": "stale"}, **htmx()))
        asks = ({"version": "stale"}, {"version": before["version"], "seen": before["seen"]})
        for ask in asks:
            page.get(fragment, ask, **htmx())
        steps.append(_step(rng, table, api, last=step == 44))
        paths = _paths(table)
        kept = {(path, reader): reader.get(path) for path in paths for reader in readers}
        kept_pages = [page.get(fragment, ask, **htmx()) for ask in asks]
        answers.forget_all()
        for ask, answer in zip(asks, kept_pages, strict=True):
            fresh = page.get(fragment, ask, **htmx())
            assert answer.status_code == fresh.status_code, (ask, steps)
            assert answer.content == fresh.content, (ask, steps)
            if fresh.status_code == 200:  # it says the version it shows: the session's
                assert shows(fresh)["version"] == str(version_of(table.id)), (ask, steps)
        for (path, reader), answer in kept.items():
            fresh = reader.get(path)
            assert answer.status_code == fresh.status_code == 200, (path, steps)
            assert answer.json() == fresh.json(), (path, steps)
    assert any(step.startswith("correct deal") for step in steps), steps
    assert sum(step.startswith("pay") for step in steps) >= 3, steps
