"""What a phone needs to score taps ahead of the server (offline), worked out here, once,
by the same rules that refuse a record: never a second copy of the rules in JavaScript.

`taps_ahead(facts)` walks every order in which the deal's remaining players may still be
tapped out (ordinary taps and, where the rules offer it, the loser tapped directly) and
says, for each order so far, who may be tapped next, or — once the order files the deal —
the points it scores and who deals and leads the next deal (`scoring.opening`). The phone
looks up the taps it holds; it computes nothing.

Events (a 2 chopped, a hand) are not walked: under the rules that file on taps alone they
do not change who may be tapped or when the deal files — but for an instant win, which
files the deal by itself: an order where one may be claimed says what each claim files
(`instant`); under the rules that need every
hand (pay by the card, Pro-Play) no order of taps files the deal, and the phone waits for
the server (`complete` is then still true: nothing files on taps).

Orders are keys: player ids joined by ",", a loser tapped directly written `L<id>`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from scoring.allowed import allowed
from scoring.deal import play
from scoring.errors import ScoringError
from scoring.facts import DealFacts, DealResult, InstantWin, PlayerId, Record, Rules, Tap
from scoring.opening import opening

# A table of four has 41 orders (77 winner takes all), of five 326 (406 winner takes all,
# loser pays: a few milliseconds); of six 2,317 (a tenth of a second, too slow for every
# render): past this the walk stops, `complete` is false, and the phone scores no further
# ahead than it got. Every table of five fits.
MOST_ORDERS = 500


@dataclass(frozen=True)
class Ahead:
    """Every order of taps from where the deal stands: `orders[key]` is either
    `{"tap": [...], "loser": [...]}` (still open: who may be tapped next) or
    `{"files": true, "points": {id: n}, "dealer": id|None, "leader": id|None}`."""

    orders: dict[str, dict[str, Any]]
    complete: bool

    def as_json(self) -> dict[str, Any]:
        return {"orders": self.orders, "complete": self.complete}


def tap_key(tap: Tap) -> str:
    return f"L{tap.player}" if tap.loser else str(tap.player)


def taps_ahead(
    facts: DealFacts,
    *,
    seated: tuple[PlayerId, ...] | None = None,
    most: int = MOST_ORDERS,
) -> Ahead:
    """The orders of taps the open deal `facts` may still take. `seated` are the players of
    the next deal (the same as this one's unless told), for its opening."""
    next_players = facts.players if seated is None else seated
    start = [tap_key(record) for record in facts.records if isinstance(record, Tap)]
    orders: dict[str, dict[str, Any]] = {}
    pending: list[tuple[list[str], DealFacts]] = [(start, facts)]
    complete = True
    while pending:
        taps, now = pending.pop()
        if len(orders) >= most:
            complete = False
            break
        key = ",".join(taps)
        try:
            outcome = play(now)
        except ScoringError:  # not a tap the rules take: not offered below, so not reached
            continue
        if outcome.closed:
            orders[key] = _files(now, outcome, next_players)
            continue
        may = allowed(now)
        orders[key] = {"tap": list(may.tap), "loser": list(may.loser)}
        if may.instant_win:
            # An instant win is an event that files the deal: what it files, by claimant
            # (the hand shown changes nothing of it).
            orders[key]["instant"] = {
                str(player): _files(now, won, next_players)
                for player in may.instant_win
                for won in [play(_with(now, InstantWin(player, may.instant_win_kinds[0])))]
            }
        for tap in [Tap(player) for player in may.tap] + [
            Tap(player, loser=True) for player in may.loser
        ]:
            pending.append(([*taps, tap_key(tap)], replace(now, records=(*now.records, tap))))
    return Ahead(orders=orders, complete=complete)


def _with(facts: DealFacts, record: Record) -> DealFacts:
    return replace(facts, records=(*facts.records, record))


def _files(
    now: DealFacts, outcome: DealResult, next_players: tuple[PlayerId, ...]
) -> dict[str, Any]:
    """An order that files the deal: its points, and who deals and leads the next one."""
    start_next = opening(
        rules=now.rules, players=next_players, previous_players=now.players, previous=outcome
    )
    return {
        "files": True,
        "points": {str(player): points for player, points in outcome.points.items()},
        "dealer": start_next.dealer,
        "leader": start_next.leader,
    }


def fresh(facts: DealFacts) -> DealFacts:
    """The next deal of the same table, before anything is recorded on it."""
    return replace(facts, records=(), ended=False)


def next_deals_ahead(facts: DealFacts) -> Ahead:
    """`taps_ahead` of a fresh deal of the same players and rules: the same for every
    deal of a table, so worked out once per table and process (read it, never change it)."""
    return _fresh_ahead(facts.players, facts.rules)


@lru_cache(maxsize=512)
def _fresh_ahead(players: tuple[PlayerId, ...], rules: Rules) -> Ahead:
    return taps_ahead(DealFacts(players=players, rules=rules))
