"""Payments in the API (SPEC 5): money paid from one player to another in a session, the
session's payments, and cancelling one (its row is kept)."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from tracker import selectors, services
from tracker.access import Actor, Role, access_session, sees_account_names
from tracker.api.base import ApiView, gated
from tracker.api.fields import AmountField, ClosedInput, IdField, MoneyField, StringField, renamed
from tracker.api.schema import reads, writes
from tracker.models import Payment
from tracker.money import money_text

# A positive amount below 10**17 with at most 2 decimals: what a payment may be.
PAYMENT_PATTERN = r"^0*([1-9][0-9]{0,16}(\.[0-9]{1,2})?|\.([1-9][0-9]?|0[1-9]))$"


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "pattern": PAYMENT_PATTERN, "example": "2.50"},
            {"type": "integer", "minimum": 1, "maximum": 10**17 - 1},
        ]
    }
)
class PaymentAmountField(AmountField):
    """A payment's amount: a decimal string with at most 2 decimal places (the service
    refuses a third with a sentence; the schema says it up front)."""


class PaymentInput(ClosedInput):
    payer = IdField()
    payee = IdField()
    amount = PaymentAmountField(what=gettext_lazy("amount"))
    currency = StringField(
        required=False, help_text="The session's currency; any other is refused."
    )

    def get_fields(self) -> dict[str, Any]:
        return renamed(super().get_fields(), payer="from", payee="to")


class PaymentOut(serializers.Serializer):
    """A payment; who recorded or cancelled it is an account's username (for members
    only: a share link sees null) or a share link's id."""

    id = serializers.IntegerField()
    payer = serializers.IntegerField(source="payer_id")
    payee = serializers.IntegerField(source="payee_id")
    amount = MoneyField()
    paid_at = serializers.DateTimeField()
    recorded_by = serializers.CharField(allow_null=True)
    recorded_via = serializers.IntegerField(source="recorded_via_id", allow_null=True)
    cancelled = serializers.BooleanField()
    cancelled_at = serializers.DateTimeField(allow_null=True)
    cancelled_by = serializers.CharField(allow_null=True)
    cancelled_via = serializers.IntegerField(source="cancelled_via_id", allow_null=True)

    def get_fields(self) -> dict[str, Any]:
        return renamed(super().get_fields(), payer="from", payee="to")


_WHEN = serializers.DateTimeField()  # DRF's own format, and time zone, for each instant


def payment_data(payments: Iterable[Payment], actor: Actor) -> list[dict[str, Any]]:
    """Payments as `PaymentOut` describes them, built directly: every answer with payments
    (the payments, the settlement's) holds them all, and DRF's serializer made a dozen
    field objects for each. Account names only for a member asking. `PaymentOut` stays
    their schema; tests/api/test_settlement_data.py holds the two to one answer."""
    shown = sees_account_names(actor)

    def account(user: Any) -> str | None:
        return user.get_username() if shown and user is not None else None

    return [
        {
            "id": payment.pk,
            "from": payment.payer_id,
            "to": payment.payee_id,
            "amount": money_text(Decimal(payment.amount)),
            "paid_at": _WHEN.to_representation(payment.paid_at),
            "recorded_by": account(payment.recorded_by),
            "recorded_via": payment.recorded_via_id,
            "cancelled": payment.cancelled_at is not None,
            "cancelled_at": None
            if payment.cancelled_at is None
            else _WHEN.to_representation(payment.cancelled_at),
            "cancelled_by": account(payment.cancelled_by),
            "cancelled_via": payment.cancelled_via_id,
        }
        for payment in payments
    ]


class PaymentsView(ApiView):
    need = {"GET": Role.VIEWER, "POST": Role.SCORER}

    @reads(PaymentOut(many=True), summary="The session's payments, oldest first")
    def get(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk)
        return Response(payment_data(selectors.session_payments(session), self.actor))

    @writes(PaymentInput, 201, PaymentOut, summary="Record money paid from one player to another")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk, need=Role.SCORER)
        data = self.valid(PaymentInput).validated_data
        payment = services.payment_record(
            session_id=session.pk,
            payer_id=data["payer"],
            payee_id=data["payee"],
            amount=data["amount"],
            currency=data.get("currency"),
            actor=self.actor,
        )
        return Response(payment_data([payment], self.actor)[0], status=status.HTTP_201_CREATED)


class PaymentCancelView(ApiView):
    need = {"POST": Role.SCORER}

    @writes(None, 200, PaymentOut, summary="Cancel a payment (the row is kept)")
    @gated
    def post(self, request: Request, pk: int, payment_id: int) -> Response:
        session = access_session(self.actor, pk, need=Role.SCORER)
        payment = services.payment_cancel(
            session_id=session.pk, payment_id=payment_id, actor=self.actor
        )
        return Response(payment_data([payment], self.actor)[0])
