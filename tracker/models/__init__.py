"""What SquareScores stores: circles, players, sessions, deals and what happened in them.

Models hold fields, constraints and tiny properties, one module per noun. Every write
goes through `tracker.services`; the rules live in `scoring`; stored rows become scoring
facts in `tracker.records`.
"""

from tracker.models.accounts import ApiToken, token_idle_limit, token_live_since
from tracker.models.circles import Circle, Invite, Player
from tracker.models.deals import (
    LIVE,
    Correction,
    Deal,
    DealEvent,
    DealPlayer,
    DealRecord,
    Tap,
    counted,
)
from tracker.models.fields import MONEY
from tracker.models.idempotency import IdempotencyKey, WriteCount
from tracker.models.ledger import LedgerLine, Payment
from tracker.models.payment_details import PaymentDetails
from tracker.models.sessions import Seat, Session, ShareLink
from tracker.models.tallies import StandingTally

__all__ = [
    "LIVE",
    "MONEY",
    "ApiToken",
    "Circle",
    "Correction",
    "Deal",
    "DealEvent",
    "DealPlayer",
    "DealRecord",
    "IdempotencyKey",
    "Invite",
    "LedgerLine",
    "Payment",
    "PaymentDetails",
    "Player",
    "Seat",
    "Session",
    "ShareLink",
    "StandingTally",
    "Tap",
    "WriteCount",
    "counted",
    "token_idle_limit",
    "token_live_since",
]
