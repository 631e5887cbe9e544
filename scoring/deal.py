"""Scoring one deal: replay what the table recorded, refuse what the rules forbid, and
derive places, points, the loser and the ledger (SPEC 3 and 4).

`play(facts)` is the whole story: every record is checked against the state the records
before it left, in order, so a stored deal and a fresh recomputation always agree.
"""

from __future__ import annotations

from dataclasses import replace

from scoring import money
from scoring.errors import ScoringError
from scoring.facts import DealFacts, DealResult, DealStatus, LedgerLine, Record, StakeRule
from scoring.replay import DealState, replay
from scoring.table import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    check_rules,
    check_stake,
    decks_for,
    max_hand_size,
    podium_size,
    points_for,
)
from scoring.text import Text, gettext_noop, ordinal

# The table rules and the error lived here before they had modules of their own; callers
# that still read them from `scoring.deal` keep working.
__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "ScoringError",
    "add_record",
    "check_rules",
    "check_stake",
    "decks_for",
    "end_match",
    "max_hand_size",
    "play",
    "podium_size",
    "result",
]


def play(facts: DealFacts) -> DealResult:
    """Replay every record of the deal, checking each, and return what it comes to.

    Raises ScoringError on the first record the rules refuse.
    """
    return result(replay(facts))


def add_record(facts: DealFacts, record: Record) -> tuple[DealFacts, DealResult]:
    """The deal with one more record, checked; raises ScoringError if refused."""
    if facts.ended:
        raise ScoringError(gettext_noop("This deal was ended with End match."), conflict=True)
    extended = replace(facts, records=(*facts.records, record))
    return extended, play(extended)


def end_match(facts: DealFacts) -> tuple[DealFacts, DealResult]:
    """Close an open deal with the taps it has (SPEC 3.3)."""
    if facts.ended:
        raise ScoringError(
            gettext_noop("This deal was already ended with End match."), conflict=True
        )
    if play(facts).closed:
        raise ScoringError(gettext_noop("This deal is already filed."), conflict=True)
    ended = replace(facts, ended=True)
    return ended, play(ended)


def result(deal: DealState) -> DealResult:
    """What a replayed deal comes to: status and why, places, points and the ledger."""
    status = deal.status()
    if status is DealStatus.FILED:
        why = _filed_why(deal)
    elif status is DealStatus.ENDED:
        why = Text(gettext_noop("Ended by End match."))
    else:
        why = _open_why(deal)
    places = deal.places()
    ledger: list[LedgerLine] = list(deal.play_ledger)
    if status is DealStatus.ENDED and deal.winner() is None:
        # An ended deal in which nobody went out counts nowhere (SPEC 3.3), its 2s
        # beaten included: standings, balances and the ledger all agree on that.
        ledger = []
    elif status is not DealStatus.OPEN:
        settled = money.settled_lines(
            deal.rules,
            deal.players,
            winner=deal.winner(),
            loser=deal.loser(),
            instant_win=deal.instant_win is not None,
            hands=deal.hands,
            guaransheed=deal.guaransheed,
        )
        ledger += [line for line in settled if line is not None]
    return DealResult(
        status=status,
        why=why,
        places=places,
        points={player: points_for(deal.rules, places.get(player, 0)) for player in deal.players},
        winner=deal.winner(),
        loser=deal.loser(),
        ledger=tuple(ledger),
    )


def _filed_why(deal: DealState) -> Text:
    if deal.instant_win is not None:
        return Text(
            gettext_noop("%(player)s won outright."),
            {"player": deal.name(deal.instant_win.player)},
        )
    if deal.rules.needs_hands:
        return Text(gettext_noop("The winner is out and every other hand is recorded."))
    if deal.rules.stake_rule is StakeRule.LOSER_PAYS:
        return Text(gettext_noop("The scoring places are filled and the loser is known."))
    return Text(gettext_noop("The scoring places are filled."))


def _open_why(deal: DealState) -> Text:
    if not deal.places_filled():
        return Text(
            gettext_noop("Waiting for %(place)s place."),
            {"place": ordinal(len(deal.order) + 1)},
        )
    if deal.rules.needs_hands:
        missing = ", ".join(str(deal.name(player)) for player in deal.hands_missing())
        return Text(gettext_noop("Waiting for the hands of %(players)s."), {"players": missing})
    return Text(gettext_noop("Waiting for the loser."))
