"""Small helpers for the page tests."""

import html
import json
import re

import scoring
from tracker.access import Actor
from tracker.models import Deal
from tracker.services import deal_event_record, deal_tap

FINISHES = [("Alice", "Cara", "Ben"), ("Dev", "Alice", "Cara"), ("Ben", "Dev", "Alice")]


def open_deal(session) -> Deal:
    return session.deals.get(status=Deal.Status.OPEN)


def play_deals(session, players, count: int, actor: Actor) -> None:
    """File `count` deals: three taps each, cycling through a few finishing orders."""
    for number in range(count):
        deal = open_deal(session)
        for name in FINISHES[number % len(FINISHES)]:
            deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)


def ben_chops_alice(deal: Deal, players, actor: Actor, seen: int | None = None) -> None:
    """Through the services, as another phone would: Ben chopped Alice's 2 (one black)
    with a cutup on `deal`; `seen` as `deal_event_record` takes it."""
    chop = scoring.TwoBeaten(
        by=players["Ben"].pk, owner=players["Alice"].pk, beaten_with=scoring.Beater.CUTUP, black=1
    )
    deal_event_record(deal_id=deal.pk, event=chop, actor=actor, seen=seen)


def htmx(**headers):
    """Headers of a request htmx sends."""
    return {"HTTP_HX_REQUEST": "true", **headers}


def shows(response) -> dict[str, str]:
    """What a standings page or fragment says it shows (`version`, `seen`), as its next
    ask sends it: read off the page as served (a kept fragment's context is not it)."""
    found = re.search(r"hx-vals='([^']*)'", response.content.decode())
    assert found, response.content[:300]
    return json.loads(html.unescape(found.group(1)))
