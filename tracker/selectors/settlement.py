"""Settle up (SPEC 5): balances and the fewest transfers that clear them."""

from __future__ import annotations

from decimal import Decimal

from django.db.models import Q

from tracker.models import LedgerLine, Player, Session
from tracker.records import Settlement, balances, settlement_of


def session_balances(session: Session) -> dict[int, Decimal]:
    """Net money per player over the session's closed deals: received − paid (two
    queries, summed in the database)."""
    return balances(LedgerLine.objects.filter(session=session))


def session_settlement(session: Session) -> Settlement:
    """Balances and transfers, paid ones marked (three queries; see `settlement_of`)."""
    return settlement_of(session)


def session_player_names(session: Session, players: set[int]) -> dict[int, str]:
    """Names of the session's players: those seated now and those with money in it."""
    return dict(
        Player.objects.filter(Q(pk__in=players) | Q(seats__session=session))
        .values_list("pk", "name")
        .distinct()
    )
