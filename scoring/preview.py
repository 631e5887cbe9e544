"""What a record would move, said before it is saved: the money a sheet's Save button
names ("Cara pays Ben 3.00"), worked out by the same rules that will score it.

On an open deal a record's money is what it adds to the deal's money as it stands now,
counting what the deal's end would charge for what is already known (a hand's unused 2s
once the winner is out, a Guaransheed's stakes once first place is tapped). On a closed
deal it is what the correction that adds it changes in the ledger.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from scoring import money
from scoring.corrections import correct
from scoring.deal import play
from scoring.errors import ScoringError
from scoring.facts import DealFacts, Hand, LedgerLine, Record
from scoring.replay import DealState, replay
from scoring.text import Text


@dataclass(frozen=True)
class Preview:
    """The ledger lines a record would add (`gained`) and take away (`lost`), or why it
    would be refused."""

    gained: tuple[LedgerLine, ...] = ()
    lost: tuple[LedgerLine, ...] = ()
    refused: Text | None = None


def preview(facts: DealFacts, record: Record) -> Preview:
    """What saving `record` on this deal would move (see the module docstring)."""
    try:
        if play(facts).closed:
            replaced = _replaced_hand(facts, record)
            _corrected, after = correct(facts, add=[record], remove=replaced)
            return _difference(play(facts).ledger, after.ledger)
        before = _money_now(replay(facts))
        after_facts = replace(facts, records=(*facts.records, record))
        return _difference(before, _money_now(replay(after_facts)))
    except ScoringError as error:
        return Preview(refused=error.text)


def fewest_cards(*, black_twos: int, red_twos: int, cutups: int, bombs: int) -> int:
    """The fewest cards a hand holding these unused cards is recorded with, where the card
    count pays nothing (loser pays): the count the replay's check needs, no more."""
    return max(black_twos + red_twos, 6 * cutups, 4 * bombs)


def _money_now(deal: DealState) -> tuple[LedgerLine, ...]:
    """An open deal's money: what play moved, and what its end would charge for what is
    known now."""
    settled = money.settled_lines(
        deal.rules,
        deal.players,
        winner=deal.winner(),
        loser=deal.loser(),
        instant_win=deal.instant_win is not None,
        hands=deal.hands,
        guaransheed=deal.guaransheed,
    )
    return (*deal.play_ledger, *(line for line in settled if line is not None))


def _replaced_hand(facts: DealFacts, record: Record) -> set[int]:
    """A hand added to a closed deal replaces the one recorded for that player."""
    if not isinstance(record, Hand):
        return set()
    return {
        index
        for index, old in enumerate(facts.records)
        if isinstance(old, Hand) and old.player == record.player
    }


def _difference(before: tuple[LedgerLine, ...], after: tuple[LedgerLine, ...]) -> Preview:
    old, new = Counter(before), Counter(after)
    return Preview(gained=tuple((new - old).elements()), lost=tuple((old - new).elements()))
