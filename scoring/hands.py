"""What a hand recorded at the end of a deal may hold (SPEC 4, 8; docs/rules.md "Hands").

The replay asks these once it knows the most cards a hand can hold and whether the player
had played a card when play ended; counting the 2s against the packs stays with it.
"""

from __future__ import annotations

from scoring.errors import ScoringError
from scoring.facts import Hand
from scoring.text import Text, gettext_noop


def check_hand(hand: Hand, *, most: int, whole: bool, name: str | Text) -> None:
    """Refuse a hand that cannot be: cards left from 0 to `most`, unused 2s, cutups and
    bombs that fit in them, and — `whole` — every card dealt for a player who had not
    played a card when play ended."""
    if not 0 <= hand.cards <= most:
        raise ScoringError(gettext_noop("Cards left must be 0 to %(most)s."), most=most)
    counts = (hand.black_twos, hand.red_twos, hand.cutups, hand.bombs)
    if min(counts) < 0:
        raise ScoringError(gettext_noop("Counts of unused cards cannot be negative."))
    if (
        hand.black_twos + hand.red_twos > hand.cards
        or hand.cutups * 6 > hand.cards
        or hand.bombs * 4 > hand.cards
    ):
        raise ScoringError(
            gettext_noop("The unused 2s, cutups and bombs do not fit in the cards left.")
        )
    if whole:
        check_whole_hand(hand, most=most, name=name)


def check_whole_hand(hand: Hand, *, most: int, name: str | Text) -> None:
    """A player marked "not yet played" on the tap that ended play (Got to Get In) still
    holds the whole hand they were dealt: `most` cards, never fewer (seed 000)."""
    if hand.cards < most:
        raise ScoringError(
            gettext_noop(
                "%(player)s had not played a card when play ended, so their hand holds all "
                "%(most)s cards."
            ),
            player=name,
            most=most,
        )
