"""Settle up in the API: balances, what is still owed, the transfers that clear it and the
payments made; paying a transfer in full, and cancelling such a payment."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext_lazy
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from tracker import answers, selectors, services
from tracker.access import Actor, Role, access_session
from tracker.api.base import ApiView, gated
from tracker.api.fields import AmountField, ClosedInput, IdField, MoneyField, renamed
from tracker.api.payments import PaymentOut, payment_data
from tracker.api.schema import watched, writes
from tracker.models import Session
from tracker.money import Settlement, TransferView, money_text
from tracker.selectors import PayOptions


class BalanceOut(serializers.Serializer):
    player = serializers.IntegerField()
    net = MoneyField(help_text="Over the ledger: received − paid.")
    owed = MoneyField(help_text="Still owed: net + payments made − payments received.")


class PayOut(serializers.Serializer):
    bank = serializers.CharField(help_text="The bank's short name, with a VietQR code.")
    account_number = serializers.CharField()
    account_name = serializers.CharField()
    vietqr = serializers.CharField(
        allow_null=True,
        help_text="The VietQR payload (VND sessions, a payee with a bank account): the "
        "amount is in it when it is whole dong.",
    )
    vietqr_has_amount = serializers.BooleanField(
        help_text="The amount is in the code (whole dong); else the payer types it."
    )
    link = serializers.CharField(allow_null=True, help_text="The payee's payment link.")
    link_has_amount = serializers.BooleanField(
        help_text="The amount is in the link (PayPal.me, Venmo in USD)."
    )


class TransferOut(serializers.Serializer):
    payer = serializers.IntegerField()
    payee = serializers.IntegerField()
    amount = MoneyField(help_text="Still to pay; paid in full: what was paid.")
    paid = serializers.BooleanField()
    payment = serializers.IntegerField(
        allow_null=True, help_text="The payment that paid it in full."
    )
    paid_so_far = MoneyField(help_text="What part payments already took off it.")
    pay = PayOut(
        allow_null=True,
        help_text="How to pay it from the screen, when the payee has payment details; "
        "null for a viewer link, which never sees them.",
    )

    def get_fields(self) -> dict[str, Any]:
        return renamed(super().get_fields(), payer="from", payee="to")


class SettlementOut(serializers.Serializer):
    currency = serializers.CharField()
    settled = serializers.BooleanField(help_text="Nothing is owed by anyone.")
    open = MoneyField(help_text="How much still has to move: the sum of what is owed.")
    balances = BalanceOut(many=True)
    transfers = TransferOut(
        many=True,
        help_text="The fewest transfers that clear what is owed, and those paid in full, "
        "by payer and payee.",
    )
    payments = PaymentOut(many=True, help_text="Every payment, cancelled ones too, oldest first.")


def settlement_data(session: Session, settlement: Settlement, actor: Actor) -> dict[str, Any]:
    """`SettlementOut(...).data`, built directly: it is a watched read's first answer at
    each version (and the answer of paying a transfer or cancelling a payment of it),
    and DRF's serializer made some 40 field objects for it, an eighth of the read's
    time. `SettlementOut` and its nested serializers stay its schema;
    tests/api/test_settlement_data.py holds the two to one answer."""
    balances, owed = settlement.balances, settlement.owed
    pay = selectors.session_pay_options(session, actor, settlement.transfers)
    return {
        "currency": session.currency,
        "settled": settlement.settled,
        "open": money_text(Decimal(settlement.open_amount)),
        "balances": [
            {
                "player": player,
                "net": money_text(Decimal(balances.get(player, 0))),
                "owed": money_text(Decimal(owed.get(player, 0))),
            }
            for player in sorted({*balances, *owed})
        ],
        "transfers": [
            {
                "from": transfer.payer,
                "to": transfer.payee,
                "amount": money_text(Decimal(transfer.amount)),
                "paid": transfer.paid,
                "payment": transfer.payment,
                "paid_so_far": money_text(Decimal(transfer.paid_so_far)),
                "pay": None
                if transfer.paid
                else pay_data(pay.get((transfer.payer, transfer.payee))),
            }
            for transfer in settlement.transfers
        ],
        "payments": payment_data(settlement.payments, actor),
    }


def pay_data(options: PayOptions | None) -> dict[str, Any] | None:
    """`PayOut(options).data`, built directly (for `settlement_data`)."""
    if options is None:
        return None
    return {
        "bank": options.bank,
        "account_number": options.account_number,
        "account_name": options.account_name,
        "vietqr": options.vietqr,
        "vietqr_has_amount": options.vietqr_has_amount,
        "link": options.link,
        "link_has_amount": options.link_has_amount,
    }


class TransferInput(ClosedInput):
    payer = IdField()
    payee = IdField()
    amount = AmountField(what=gettext_lazy("amount"))

    def get_fields(self) -> dict[str, Any]:
        return renamed(super().get_fields(), payer="from", payee="to")

    def transfer(self) -> TransferView:
        data = self.validated_data
        return TransferView(payer=data["payer"], payee=data["payee"], amount=data["amount"])


class SettlementView(ApiView):
    need = {"GET": Role.VIEWER}
    watches = "session"
    # Balances from the ledger, payments, the payees' details and names, who sits at the
    # table: each moves the rows' counter, and a tap that files nothing none of them.
    kept_by = (answers.ROWS,)

    @watched(SettlementOut, summary="Balances, what is owed, and the transfers that clear it")
    def get(self, request: Request, pk: int) -> Response:
        session = self.watched_session(pk)
        return self.fresh(
            session,
            lambda: Response(
                settlement_data(session, selectors.session_settlement(session), self.actor)
            ),
        )


class SettlementPaidView(ApiView):
    need = {"POST": Role.SCORER}

    @writes(TransferInput, 201, SettlementOut, summary="Pay a transfer in full")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk, need=Role.SCORER)
        transfer = self.valid(TransferInput).transfer()
        services.transfer_mark_paid(
            session_id=session.pk,
            payer_id=transfer.payer,
            payee_id=transfer.payee,
            amount=transfer.amount,
            actor=self.actor,
        )
        settlement = selectors.session_settlement(session)
        return Response(
            settlement_data(session, settlement, self.actor), status=status.HTTP_201_CREATED
        )


class SettlementUnpaidView(ApiView):
    need = {"POST": Role.SCORER}

    @writes(TransferInput, 200, SettlementOut, summary="Cancel the payment of a transfer")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk, need=Role.SCORER)
        transfer = self.valid(TransferInput).transfer()
        services.transfer_mark_unpaid(
            session_id=session.pk,
            payer_id=transfer.payer,
            payee_id=transfer.payee,
            amount=transfer.amount,
            actor=self.actor,
        )
        settlement = selectors.session_settlement(session)
        return Response(settlement_data(session, settlement, self.actor))
