"""Settle up (SPEC 5): balances, payments, what is still owed and the fewest transfers
that clear it; and which sessions of a list still have money open."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import Q

from scoring import vietqr
from scoring.paylinks import link_to_pay
from tracker.access import Actor, sees_payment_details
from tracker.models import LedgerLine, Payment, PaymentDetails, Player, Session
from tracker.money import Settlement, TransferView, balances, settlement_of, settlements_of
from tracker.rows import loader, selected


def session_balances(session: Session) -> dict[int, Decimal]:
    """Net money per player over the session's closed deals: received − paid (two
    queries, summed in the database)."""
    return balances(LedgerLine.objects.filter(session=session))


def session_settlement(session: Session) -> Settlement:
    """Balances, what is still owed, the transfers and the payments (two queries; see
    `settlement_of`)."""
    return settlement_of(session)


def session_settlements(sessions: Iterable[Session]) -> dict[int, Settlement]:
    """Each session's settlement, by session id: whether it is settled and how much is
    open (two queries however many sessions; see `settlements_of`)."""
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


@dataclass(frozen=True)
class PayOptions:
    """How one transfer can be paid from the screen: the payee's VietQR code (a VND
    session and a bank account: the payload, with the amount when it is whole dong), and
    their payment link (with the amount in it where the service takes one)."""

    bank: str  # the bank's short name, with a VietQR code
    account_number: str
    account_name: str
    vietqr: str | None
    link: str | None
    vietqr_has_amount: bool = False  # else the payer types it in (a fraction of a dong)
    link_has_amount: bool = False  # else the payer types it in (not PayPal.me or Venmo)


def session_pay_options(
    session: Session,
    actor: Actor,
    transfers: Iterable[TransferView],
    names: dict[int, str] | None = None,
) -> dict[tuple[int, int], PayOptions]:
    """How each open transfer to a player with payment details can be paid, by (payer,
    payee); nothing for a caller who may not see payment details (a viewer link).

    The transfer notes name the players: `names`, else the names read with the payees'
    details. Queries: one (`_names_and_details`); none for a viewer link or when
    nothing is owed."""
    if not sees_payment_details(actor):
        return {}
    owed = [transfer for transfer in transfers if not transfer.paid]
    if not owed:
        return {}  # nobody to pay: nothing to read
    payees = {transfer.payee for transfer in owed}
    read, details = _names_and_details({transfer.payer for transfer in owed} | payees, payees)
    names = read if names is None else names
    options = {}
    for transfer in owed:
        payee = details.get(transfer.payee)
        if payee is None:
            continue
        note = vietqr.transfer_note(
            session.name,
            names.get(transfer.payer, ""),
            names.get(transfer.payee, ""),
            names.values(),
        )
        code, dong = None, vietqr.whole_dong(transfer.amount)
        if payee.has_bank and session.currency == "VND":
            code = vietqr.payload(
                bank_bin=payee.bank_bin, account=payee.account_number, amount=dong, note=note
            )
        link = (
            link_to_pay(payee.link, transfer.amount, session.currency, note) if payee.link else None
        )
        if code is None and link is None:
            continue
        bank = vietqr.BANKS_BY_BIN.get(payee.bank_bin)
        options[(transfer.payer, transfer.payee)] = PayOptions(
            bank=bank.short_name if bank and code else "",
            account_number=payee.account_number if code else "",
            account_name=payee.account_name if code else "",
            vietqr=code,
            link=link.url if link else None,
            vietqr_has_amount=bool(code and dong),
            link_has_amount=bool(link and link.with_amount),
        )
    return options


def _names_and_details(
    players: set[int], payees: set[int]
) -> tuple[dict[int, str], dict[int, PaymentDetails]]:
    """The names of `players`, and the payment details of those of them in `payees` who
    have any, loaded as the ORM loads them, in one statement written by hand (see
    `tracker.rows`): the settlement's first read runs it, and the ORM compiled a query
    for the details, then one for the names, on every call. Held to the ORM's reads by
    tests/api/test_settlement_data.py."""
    if not players:
        return {}, {}  # `IN ()` is no statement on PostgreSQL
    sql, load = _names_and_details_read(connection.vendor, len(players))
    with connection.cursor() as cursor:
        cursor.execute(sql, sorted(players))
        found = cursor.fetchall()
    names = {values[0]: values[1] for values in found}
    details = {
        values[0]: load(values)
        for values in found
        if values[0] in payees and values[_DETAILS_AT] is not None  # no details: a null id
    }
    return names, details


_DETAILS_AT = 2  # the payment details' columns follow the player's id and name


@functools.cache
def _names_and_details_read(
    vendor: str, players: int
) -> tuple[str, Callable[[Sequence[Any]], PaymentDetails]]:
    """The statement `_names_and_details` runs for so many players, and the loader of the
    details in its rows (built once a process for each number of players)."""
    quote = connection.ops.quote_name
    assert PaymentDetails._meta.concrete_fields[0] is PaymentDetails._meta.pk
    key = f"p.{quote(Player._meta.pk.column)}"
    name = f"p.{quote(Player._meta.get_field('name').column)}"
    details_of = f"d.{quote(PaymentDetails._meta.get_field('player').column)}"
    sql = (
        f"SELECT {key}, {name}, {', '.join(selected(PaymentDetails, 'd'))}"
        f" FROM {quote(Player._meta.db_table)} p"
        f" LEFT OUTER JOIN {quote(PaymentDetails._meta.db_table)} d ON {details_of} = {key}"
        f" WHERE {key} IN ({', '.join(['%s'] * players)})"
    )
    width = len(PaymentDetails._meta.concrete_fields)
    return sql, loader(PaymentDetails, range(_DETAILS_AT, _DETAILS_AT + width))
