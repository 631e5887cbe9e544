"""Small helpers for the page tests."""

import html
import json
import re

from tracker.access import Actor
from tracker.models import Deal
from tracker.services import deal_tap

FINISHES = [("Alice", "Cara", "Ben"), ("Dev", "Alice", "Cara"), ("Ben", "Dev", "Alice")]


def open_deal(session) -> Deal:
    return session.deals.get(status=Deal.Status.OPEN)


def play_deals(session, players, count: int, actor: Actor) -> None:
    """File `count` deals: three taps each, cycling through a few finishing orders."""
    for number in range(count):
        deal = open_deal(session)
        for name in FINISHES[number % len(FINISHES)]:
            deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)


def htmx(**headers):
    """Headers of a request htmx sends."""
    return {"HTTP_HX_REQUEST": "true", **headers}


def shows(response) -> dict[str, str]:
    """What a standings page or fragment says it shows (`version`, `seen`), as its next
    ask sends it: read off the page as served (a kept fragment's context is not it)."""
    found = re.search(r"hx-vals='([^']*)'", response.content.decode())
    assert found, response.content[:300]
    return json.loads(html.unescape(found.group(1)))
