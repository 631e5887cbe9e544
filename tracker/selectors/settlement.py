"""Settle up (SPEC 5): balances, payments, what is still owed and the fewest transfers
that clear it; and which sessions of a list still have money open."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from django.db.models import Q

from tracker.models import LedgerLine, Payment, Player, Session
from tracker.records import Settlement, balances, settlement_of, settlements_of


def session_balances(session: Session) -> dict[int, Decimal]:
    """Net money per player over the session's closed deals: received − paid (two
    queries, summed in the database)."""
    return balances(LedgerLine.objects.filter(session=session))


def session_settlement(session: Session) -> Settlement:
    """Balances, what is still owed, the transfers and the payments (three queries; see
    `settlement_of`)."""
    return settlement_of(session)


def session_settlements(sessions: Iterable[Session]) -> dict[int, Settlement]:
    """Each session's settlement, by session id: whether it is settled and how much is
    open (three queries however many sessions; see `settlements_of`)."""
    return settlements_of(session.pk for session in sessions)


def session_payments(session: Session) -> list[Payment]:
    """Every payment of the session, cancelled ones too, oldest first, with who recorded
    and cancelled them (one query)."""
    return list(
        session.payments.select_related(
            "recorded_by", "recorded_via", "cancelled_by", "cancelled_via"
        ).order_by("paid_at", "pk")
    )


def session_player_names(session: Session, players: set[int]) -> dict[int, str]:
    """Names of the session's players: those seated now and those with money in it."""
    return dict(
        Player.objects.filter(Q(pk__in=players) | Q(seats__session=session))
        .values_list("pk", "name")
        .distinct()
    )
