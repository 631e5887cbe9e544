"""The rules of the table itself: how many play, how many cards and packs, what a place
scores, and which rule sets can work (SPEC 3.1, 4, 8)."""

from __future__ import annotations

from decimal import Decimal

from scoring.errors import ScoringError
from scoring.facts import Format, Rules, StakeRule
from scoring.text import gettext_noop

PODIUM_POINTS = {1: 3, 2: 2, 3: 1}
MAX_STAKE = Decimal("1000000")
MIN_PLAYERS, MAX_PLAYERS = 2, 8
TWOS_PER_COLOUR_PER_DECK = 2
MAX_TWOS_BEATEN = 3  # four 2s cannot be beaten


def decks_for(players: int) -> int:
    """Five to eight players shuffle two packs together."""
    return 2 if players >= 5 else 1


def max_hand_size(players: int) -> int:
    """The most cards each player can be dealt: 13, 17 for three, or what goes round
    equally from two packs with five to eight."""
    if players == 3:
        return 17
    if players >= 5:
        return 52 * 2 // players
    return 13


def most_cards(rules: Rules, players: int) -> int:
    """The most cards a hand can hold at the end: the session's hand size, unless this
    deal's table is too large to deal that many (players can change between deals)."""
    return min(rules.hand_size, max_hand_size(players))


def one_pack(players: int) -> bool:
    """Whether the table plays with one pack: instant wins are played only then (seed
    000, Double Deck 13: "There are no instant wins")."""
    return decks_for(players) == 1


def podium_size(rules: Rules, players: int) -> int:
    if rules.format is Format.WINNER_TAKES_ALL:
        return 1
    return min(3, players)


def points_for(rules: Rules, place: int) -> int:
    if rules.format is Format.WINNER_TAKES_ALL:
        return 1 if place == 1 else 0
    return PODIUM_POINTS.get(place, 0)


def check_stake(stake: Decimal) -> None:
    if not stake.is_finite() or stake <= 0:
        raise ScoringError(gettext_noop("The stake must be more than 0."))
    if stake > MAX_STAKE:
        raise ScoringError(gettext_noop("The stake can be at most 1,000,000."))
    if stake != stake.quantize(Decimal("0.01")):
        raise ScoringError(gettext_noop("The stake can have at most 2 decimal places."))


def check_rules(rules: Rules, players: int) -> None:
    """Refuse a rule set that cannot work at a table of this size (SPEC 4, 8)."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ScoringError(gettext_noop("A table has 2 to 8 players."))
    check_stake(rules.stake)
    if rules.needs_hands and rules.format is Format.PODIUM:
        raise ScoringError(
            gettext_noop(
                "Pay by the card and Pro-Play end the deal at the first player out, "
                "so they go with winner takes all, not a podium."
            )
        )
    options = rules.options
    if rules.stake_rule is StakeRule.NONE and (
        options.penalties or options.guaransheed or options.got_to_get_in
    ):
        raise ScoringError(
            gettext_noop(
                "With no stakes no money moves: switch off penalties, Guaransheed and "
                "Got to Get In, or pick a stake rule."
            )
        )
    if options.instant_wins and options.trading:
        raise ScoringError(
            gettext_noop(
                "Instant wins and trading cannot be on together: traded cards would make "
                "an instant-win hand."
            )
        )
    if options.five_consecutive_pairs and not options.instant_wins:
        raise ScoringError(
            gettext_noop("5 consecutive pairs is an instant-win hand: switch on instant wins too.")
        )
    largest = max_hand_size(players)
    if not 13 <= rules.hand_size <= largest:
        if largest == 13:
            raise ScoringError(
                gettext_noop("With %(players)s players each is dealt 13 cards."), players=players
            )
        raise ScoringError(
            gettext_noop("With %(players)s players the hand size is 13 to %(largest)s cards."),
            players=players,
            largest=largest,
        )


TWO_PACKS_NO_INSTANT_WINS = gettext_noop(
    "With 5 to 8 players two packs are dealt, and two packs have no instant wins."
)


def check_start(rules: Rules, players: int) -> None:
    """Refuse a rule set a session cannot start with at a table of this size: what
    `check_rules` refuses, and instant wins when the first table plays with two packs.

    A change of seating is checked by `check_rules` only: a fifth player may join a
    session with instant wins on, which then sleep while two packs are dealt.
    """
    check_rules(rules, players)
    if rules.options.instant_wins and not one_pack(players):
        raise ScoringError(
            gettext_noop(
                "With 5 to 8 players two packs are dealt, and two packs have no instant "
                "wins: switch instant wins off, or seat 2 to 4 players."
            )
        )
