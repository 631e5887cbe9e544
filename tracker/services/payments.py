"""Payments: marking a transfer of the settlement paid, and taking the mark back (SPEC 5)."""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from scoring.text import Text
from tracker.access import Actor
from tracker.errors import Conflict, Invalid
from tracker.models import Payment, Player, Session
from tracker.records import settlement_of
from tracker.services.locks import locked_session

NOT_IN_SESSION = gettext_noop("%(player)s is not in this session.")
PLAYER_ID = gettext_noop("Player %(id)s")
NO_TRANSFER = gettext_noop("There is no transfer from %(transfer)s in this session's settlement.")
NOT_PAID = gettext_noop("The transfer from %(transfer)s is not marked paid.")
ALREADY_PAID = gettext_noop("That transfer is already marked paid.")


def _transfer_words(session: Session, payer_id: int, payee_id: int, amount: Decimal) -> Text:
    """ "Ben to Alice of 3.00", naming only players of this session: an id from anywhere
    else is refused as not in the session, without a name."""
    names = dict(
        Player.objects.filter(
            Q(seats__session=session) | Q(deal_players__deal__session=session),
            pk__in=[payer_id, payee_id],
        )
        .values_list("pk", "name")
        .distinct()
    )
    for player_id in (payer_id, payee_id):
        if player_id not in names:
            raise Invalid(
                NOT_IN_SESSION,
                code="player_not_in_session",
                player=Text(PLAYER_ID, {"id": player_id}),
            )
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
def transfer_mark_paid(
    *, session_id: int, payer_id: int, payee_id: int, amount: Decimal, actor: Actor
) -> Payment:
    """Mark one of the settlement's transfers paid, naming who marked it. The ledger is
    not touched, so the other open transfers stay as they are."""
    session = locked_session(session_id)
    for transfer in settlement_of(session).transfers:
        if (transfer.payer, transfer.payee, transfer.amount) == (payer_id, payee_id, amount):
            if transfer.paid:
                raise Conflict(ALREADY_PAID, code="already_paid")
            return session.payments.create(
                payer_id=payer_id,
                payee_id=payee_id,
                amount=transfer.amount,
                **actor.fields("recorded"),
            )
    raise Invalid(
        NO_TRANSFER,
        code="no_such_transfer",
        transfer=_transfer_words(session, payer_id, payee_id, amount),
    )


@transaction.atomic
def transfer_mark_unpaid(
    *, session_id: int, payer_id: int, payee_id: int, amount: Decimal, actor: Actor
) -> Payment:
    """Take back a payment mark: the Payment row stays, cancelled, naming who cancelled."""
    session = locked_session(session_id)
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
    payment.cancelled_at = timezone.now()
    payment.cancelled_by, payment.cancelled_via = actor.user, actor.link
    payment.save(update_fields=["cancelled_at", "cancelled_by", "cancelled_via"])
    return payment
