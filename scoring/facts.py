"""The facts of a deal, as the table reports them, and the results scoring derives.

Everything here is plain data: frozen dataclasses and string enums. Player ids are
integers (the tracker passes primary keys; tests use small numbers).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum

from scoring.text import Text, gettext_noop

PlayerId = int


class Format(StrEnum):
    PODIUM = "podium"
    WINNER_TAKES_ALL = "winner_takes_all"


class StakeRule(StrEnum):
    NONE = "none"
    LOSER_PAYS = "loser_pays"
    PER_CARD = "per_card"
    PRO_PLAY = "pro_play"


class Beater(StrEnum):
    """What beat a 2: three or more pairs in sequence, or four of a kind."""

    CUTUP = "cutup"
    BOMB = "bomb"


class InstantWinKind(StrEnum):
    """Instant-win hands, lowest to highest (rarest last). Five consecutive pairs (no 2s)
    is seed 000's "alternate instant win hand", played only with its session option."""

    SIX_PAIRS = "six_pairs"
    FIVE_CONSECUTIVE_PAIRS = "five_consecutive_pairs"
    THREE_TRIPLES = "three_triples"
    DRAGON = "dragon"
    FOUR_TWOS = "four_twos"


class DealStatus(StrEnum):
    OPEN = "open"
    FILED = "filed"
    ENDED = "ended"


class Reason(StrEnum):
    """Why money moved: one code per kind of ledger line."""

    LOSER_PAYS = "loser_pays"
    CARDS_LEFT = "cards_left"
    PRO_PLAY_WIN = "pro_play_win"
    TWO_BEATEN = "two_beaten"
    CUTUP_BEATEN = "cutup_beaten"
    UNUSED_BLACK_TWO = "unused_black_two"
    UNUSED_RED_TWO = "unused_red_two"
    UNUSED_CUTUP = "unused_cutup"
    UNUSED_BOMB = "unused_bomb"
    GUARANSHEED_WON = "guaransheed_won"
    GUARANSHEED_LOST = "guaransheed_lost"
    GOT_TO_GET_IN = "got_to_get_in"
    INSTANT_WIN = "instant_win"


@dataclass(frozen=True)
class Options:
    guaransheed: bool = False
    got_to_get_in: bool = False
    instant_wins: bool = False
    trading: bool = False
    penalties: bool = False
    five_consecutive_pairs: bool = False  # the alternate instant-win hand (seed 000)

    def instant_win_kinds(self) -> tuple[InstantWinKind, ...]:
        """The instant-win hands this session plays, lowest to highest."""
        if not self.instant_wins:
            return ()
        return tuple(
            kind
            for kind in InstantWinKind
            if kind is not InstantWinKind.FIVE_CONSECUTIVE_PAIRS or self.five_consecutive_pairs
        )


@dataclass(frozen=True)
class Rules:
    """A session's rule set, fixed when the session starts."""

    format: Format = Format.PODIUM
    stake_rule: StakeRule = StakeRule.LOSER_PAYS
    stake: Decimal = Decimal("1")
    options: Options = field(default_factory=Options)
    hand_size: int = 13

    @property
    def moves_money(self) -> bool:
        return self.stake_rule is not StakeRule.NONE

    @property
    def penalties_on(self) -> bool:
        """The twos-and-bombs schedule of SPEC 4.1: always under Pro-Play, else optional."""
        if self.stake_rule is StakeRule.PRO_PLAY:
            return True
        return self.options.penalties and self.moves_money

    @property
    def needs_hands(self) -> bool:
        """Rules under which a deal files only once every other hand is recorded."""
        return self.stake_rule in (StakeRule.PER_CARD, StakeRule.PRO_PLAY)


# --- What the table records, in the order it happened -------------------------------


@dataclass(frozen=True)
class Tap:
    """A player went out. `loser=True` taps the loser directly (5-8 players)."""

    player: PlayerId
    not_played: tuple[PlayerId, ...] = ()
    loser: bool = False


@dataclass(frozen=True)
class TwoBeaten:
    """`by` beat `owner`'s 2s (1 to 3 of them) with a cutup or a bomb."""

    by: PlayerId
    owner: PlayerId
    beaten_with: Beater
    black: int = 0
    red: int = 0


@dataclass(frozen=True)
class CutupBeaten:
    """`by` beat the cutup `owner` last played, with a higher cutup or a bomb: it earns
    double what that cutup earned; only a cutup's earning can be doubled again."""

    by: PlayerId
    owner: PlayerId
    beaten_with: Beater = Beater.CUTUP


@dataclass(frozen=True)
class Hand:
    """What a player still held when the deal ended."""

    player: PlayerId
    cards: int
    black_twos: int = 0
    red_twos: int = 0
    cutups: int = 0
    bombs: int = 0


@dataclass(frozen=True)
class Guaransheed:
    """A declaration before the first tap that the player will finish first."""

    player: PlayerId
    blind: bool = False


@dataclass(frozen=True)
class InstantWin:
    player: PlayerId
    kind: InstantWinKind


Record = Tap | TwoBeaten | CutupBeaten | Hand | Guaransheed | InstantWin


@dataclass(frozen=True)
class DealFacts:
    """Everything known about one deal: who played it, under which rules, what happened.

    `ended` is True when the host closed the deal with End match.
    """

    players: tuple[PlayerId, ...]
    rules: Rules
    records: tuple[Record, ...] = ()
    ended: bool = False
    names: Mapping[PlayerId, str] = field(default_factory=dict, compare=False)

    def name(self, player: PlayerId) -> str | Text:
        """How messages call a player: their name, or "Player 7" (translatable) for an id
        that is not at the table."""
        if player in self.names:
            return self.names[player]
        return Text(gettext_noop("Player %(id)s"), {"id": player})


# --- What scoring derives ------------------------------------------------------------


@dataclass(frozen=True)
class LedgerLine:
    payer: PlayerId
    payee: PlayerId
    amount: Decimal
    reason: Reason


@dataclass(frozen=True)
class TradingReminder:
    """`giver` hands `cards` highest cards to `receiver`, who returns `returns` cards."""

    giver: PlayerId
    receiver: PlayerId
    cards: int
    returns: int


@dataclass(frozen=True)
class DealResult:
    status: DealStatus
    why: Text  # why the deal is open, filed or ended, for people
    places: dict[PlayerId, int]
    points: dict[PlayerId, int]
    winner: PlayerId | None
    loser: PlayerId | None
    ledger: tuple[LedgerLine, ...]

    @property
    def closed(self) -> bool:
        return self.status is not DealStatus.OPEN


@dataclass(frozen=True)
class Transfer:
    payer: PlayerId
    payee: PlayerId
    amount: Decimal
