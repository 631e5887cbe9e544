"""Payments (SPEC 5): money paid from one player to another to settle up, any amount; a
transfer of the settlement paid in full; a payment cancelled, its row kept.

A payment never touches the ledger: it is money that moved, and stays moved whatever a
correction later does to the deals (`scoring.payments` works out what is still owed).
"""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from scoring.text import Text
from tracker.access import Actor
from tracker.errors import Conflict, Invalid, NotFound
from tracker.models import Payment, Player, Session
from tracker.money import settlement_of
from tracker.services.locks import locked_session

NOT_IN_SESSION = gettext_noop("%(player)s is not in this session.")
PLAYER_ID = gettext_noop("Player %(id)s")
NO_TRANSFER = gettext_noop("There is no transfer from %(transfer)s in this session's settlement.")
NOT_PAID = gettext_noop("The transfer from %(transfer)s is not marked paid.")
ALREADY_PAID = gettext_noop("That transfer is already marked paid.")
PAYS_ITSELF = gettext_noop("%(player)s cannot pay themselves: pick two different players.")
NOT_POSITIVE = gettext_noop("A payment is more than 0.")
TOO_PRECISE = gettext_noop("A payment has at most 2 decimal places, like 2.50.")
OTHER_CURRENCY = gettext_noop(
    "This session plays for %(currency)s; a payment in %(sent)s cannot settle it."
)
NO_PAYMENT = gettext_noop("There is no payment %(id)s in this session.")
ALREADY_CANCELLED = gettext_noop("That payment was already cancelled.")
TOO_LARGE = gettext_noop("That payment is too large.")
CENT = Decimal("0.01")
LARGEST = Decimal(10) ** 17  # what a money column (20 digits, 3 places) holds


def _names(session: Session, *player_ids: int) -> dict[int, str]:
    """The names of these players, who must be of this session (seated now, or dealt in
    a deal of it): an id from anywhere else is refused as not in the session, without a
    name."""
    names = dict(
        Player.objects.filter(
            Q(seats__session=session) | Q(deal_players__deal__session=session),
            pk__in=player_ids,
        )
        .values_list("pk", "name")
        .distinct()
    )
    for player_id in player_ids:
        if player_id not in names:
            raise Invalid(
                NOT_IN_SESSION,
                code="player_not_in_session",
                player=Text(PLAYER_ID, {"id": player_id}),
            )
    return names


def _transfer_words(session: Session, payer_id: int, payee_id: int, amount: Decimal) -> Text:
    """ "Ben to Alice of 3.00", naming only players of this session."""
    names = _names(session, payer_id, payee_id)
    return Text(
        gettext_noop("%(payer)s to %(payee)s of %(amount)s"),
        {
            "payer": names[payer_id],
            "payee": names[payee_id],
            # Positional only while it stays short: "1e999999999" written out would be
            # a billion digits.
            "amount": f"{amount:f}" if abs(amount.adjusted()) < 20 else str(amount),
        },
    )


@transaction.atomic
def payment_record(
    *,
    session_id: int,
    payer_id: int,
    payee_id: int,
    amount: Decimal,
    currency: str | None = None,
    actor: Actor,
) -> Payment:
    """Record money paid from `payer` to `payee` in this session: any amount more than 0
    with at most 2 decimal places, in the session's currency (`currency`, when sent, must
    be it). Nothing is checked against what is owed: paying too much shows as change due.
    """
    session = locked_session(session_id, rows=True)  # the settle-up shows payments
    if currency is not None and currency.strip().upper() != session.currency:
        raise Invalid(
            OTHER_CURRENCY, code="currency_mismatch", currency=session.currency, sent=currency
        )
    if not amount.is_finite() or amount <= 0:
        raise Invalid(NOT_POSITIVE, code="invalid_amount")
    if amount >= LARGEST:
        raise Invalid(TOO_LARGE, code="invalid_amount")
    if amount != amount.quantize(CENT):
        raise Invalid(TOO_PRECISE, code="invalid_amount")
    names = _names(session, payer_id, payee_id)
    if payer_id == payee_id:
        raise Invalid(PAYS_ITSELF, code="payment_to_self", player=names[payer_id])
    return session.payments.create(
        payer_id=payer_id, payee_id=payee_id, amount=amount, **actor.fields("recorded")
    )


@transaction.atomic
def payment_cancel(*, session_id: int, payment_id: int, actor: Actor) -> Payment:
    """Cancel a payment (entered by mistake, or never made): the row stays, naming who
    cancelled it and when, and what is owed goes back to what it was without it."""
    session = locked_session(session_id, rows=True)  # the settle-up shows payments
    payment = session.payments.select_for_update().filter(pk=payment_id).first()
    if payment is None:
        raise NotFound(NO_PAYMENT, id=payment_id)
    if payment.cancelled_at is not None:
        raise Conflict(ALREADY_CANCELLED, code="already_cancelled")
    return _cancel(payment, actor)


def _cancel(payment: Payment, actor: Actor) -> Payment:
    payment.cancelled_at = timezone.now()
    payment.cancelled_by, payment.cancelled_via = actor.user, actor.link
    payment.save(update_fields=["cancelled_at", "cancelled_by", "cancelled_via"])
    return payment


@transaction.atomic
def transfer_mark_paid(
    *, session_id: int, payer_id: int, payee_id: int, amount: Decimal, actor: Actor
) -> Payment:
    """Pay one of the settlement's open transfers in full: a payment of what is left on
    it (its exact amount, a third decimal included). The other transfers stay as they
    are (`scoring.payments`)."""
    session = locked_session(session_id, rows=True)  # the settle-up shows payments
    transfers = settlement_of(session).transfers
    for transfer in transfers:
        if (transfer.payer, transfer.payee, transfer.amount) == (payer_id, payee_id, amount):
            if transfer.paid:
                continue
            return session.payments.create(
                payer_id=payer_id,
                payee_id=payee_id,
                amount=transfer.amount,
                **actor.fields("recorded"),
            )
    if any(
        (transfer.payer, transfer.payee, transfer.amount, transfer.paid)
        == (payer_id, payee_id, amount, True)
        for transfer in transfers
    ):
        raise Conflict(ALREADY_PAID, code="already_paid")
    raise Invalid(
        NO_TRANSFER,
        code="no_such_transfer",
        transfer=_transfer_words(session, payer_id, payee_id, amount),
    )


@transaction.atomic
def transfer_mark_unpaid(
    *, session_id: int, payer_id: int, payee_id: int, amount: Decimal, actor: Actor
) -> Payment:
    """Cancel the latest payment of this much from `payer` to `payee` (the row stays,
    naming who cancelled it)."""
    session = locked_session(session_id, rows=True)  # the settle-up shows payments
    payments = session.payments.select_for_update().filter(
        payer_id=payer_id, payee_id=payee_id, cancelled_at__isnull=True
    )
    # Amounts compared as Decimals here, not in SQL: SQLite stores decimals loosely.
    payment = next((p for p in payments.order_by("-paid_at", "-id") if p.amount == amount), None)
    if payment is None:
        raise Conflict(
            NOT_PAID,
            code="not_paid",
            transfer=_transfer_words(session, payer_id, payee_id, amount),
        )
    return _cancel(payment, actor)
