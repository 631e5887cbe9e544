"""The rules of Tien Len scoring as plain Python: facts in, points, ledgers and
settlements out. Nothing here imports Django."""

from scoring.allowed import Allowed, allowed
from scoring.corrections import correct
from scoring.deal import add_record, end_match, play
from scoring.errors import ScoringError
from scoring.facts import (
    Beater,
    CutupBeaten,
    DealFacts,
    DealResult,
    DealStatus,
    Format,
    Guaransheed,
    Hand,
    InstantWin,
    InstantWinKind,
    LedgerLine,
    Options,
    PlayerId,
    Reason,
    Record,
    Rules,
    StakeRule,
    Tap,
    TradingReminder,
    Transfer,
    TwoBeaten,
)
from scoring.opening import Opening, opening
from scoring.preview import Preview, fewest_cards, preview
from scoring.standing import COUNTED_STATUSES, counts
from scoring.table import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    check_rules,
    check_stake,
    check_start,
    decks_for,
    max_hand_size,
    podium_size,
)

__all__ = [
    "Allowed",
    "Beater",
    "COUNTED_STATUSES",
    "CutupBeaten",
    "DealFacts",
    "DealResult",
    "DealStatus",
    "Format",
    "Guaransheed",
    "Hand",
    "InstantWin",
    "InstantWinKind",
    "LedgerLine",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Opening",
    "Options",
    "PlayerId",
    "Preview",
    "Reason",
    "Record",
    "Rules",
    "ScoringError",
    "StakeRule",
    "Tap",
    "TradingReminder",
    "Transfer",
    "TwoBeaten",
    "add_record",
    "allowed",
    "check_rules",
    "check_stake",
    "check_start",
    "correct",
    "counts",
    "decks_for",
    "end_match",
    "fewest_cards",
    "max_hand_size",
    "opening",
    "play",
    "podium_size",
    "preview",
]
