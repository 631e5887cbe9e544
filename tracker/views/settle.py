"""Settle up (SPEC 5): what each player is still owed after the payments made, the fewest
transfers that clear it (each paid in one tap, or in part), and every payment with who
recorded it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from tracker import selectors, services
from tracker.access import Role, sees_account_names
from tracker.models import Payment
from tracker.selectors import PayOptions
from tracker.views.doors import SessionPage, first_error, session_page, write_and_show
from tracker.views.screens.qr import qr_svg
from tracker.views.table_forms import PaymentCancelForm, PaymentForm, TransferForm


@dataclass
class Pay:
    """How to pay a transfer from the screen: the payee's details (`selectors.PayOptions`)
    and their VietQR code drawn."""

    options: PayOptions
    qr_svg: str


@dataclass
class TransferLine:
    payer: int
    payee: int
    payer_name: str
    payee_name: str
    amount: Decimal  # left to pay; paid in full: what was paid
    paid: bool
    paid_so_far: Decimal
    payment: int | None  # paid in full: the payment that cleared it
    pay: Pay | None = None  # a member or the scorer link, a payee with details


@dataclass
class PaymentLine:
    id: int
    payer_name: str
    payee_name: str
    amount: Decimal
    paid_at: datetime
    recorded_by: str
    cancelled_at: datetime | None
    cancelled_by: str


def _who(page: SessionPage) -> Callable[[Any, Any], str]:
    """Who wrote a payment, as the page says it: an account by name (to a member; a link
    is told "a member"), or the scorer link."""

    named = sees_account_names(page.actor)

    def who(user: Any, link: Any) -> str:
        if link is not None:
            return _("the scorer link")
        if user is None:
            return ""
        return user.get_username() if named else _("a member")

    return who


def _page(
    request: HttpRequest, page: SessionPage, *, message: str = "", status: int = 200
) -> HttpResponse:
    session = page.session
    settlement = selectors.session_settlement(session)
    # Everyone with money in it, and the parties of cancelled payments too.
    parties = {p.payer_id for p in settlement.payments} | {p.payee_id for p in settlement.payments}
    names = selectors.session_player_names(session, set(settlement.owed) | parties)
    who = _who(page)
    balances = sorted(
        (
            (names.get(player, "?"), settlement.balances.get(player, Decimal(0)), owed)
            for player, owed in settlement.owed.items()
        ),
        key=lambda row: (-row[2], -row[1], row[0].lower()),
    )
    pay = selectors.session_pay_options(session, page.actor, settlement.transfers, names)
    transfers = [
        TransferLine(
            payer=transfer.payer,
            payee=transfer.payee,
            payer_name=names.get(transfer.payer, "?"),
            payee_name=names.get(transfer.payee, "?"),
            amount=transfer.amount,
            paid=transfer.paid,
            paid_so_far=transfer.paid_so_far,
            payment=transfer.payment,
            pay=_pay(pay.get((transfer.payer, transfer.payee)), names.get(transfer.payee, "")),
        )
        for transfer in settlement.transfers
    ]
    payments = [_payment_line(payment, names, who) for payment in reversed(settlement.payments)]
    context = page.context(
        balances=balances,
        transfers=transfers,
        payments=payments,
        open_count=sum(1 for transfer in transfers if not transfer.paid),
        settled=settlement.settled,
        open_amount=settlement.open_amount,
        players=sorted(names.items(), key=lambda item: item[1].lower()),
        message=message,
    )
    template = "settle/_settle.html" if request.htmx else "settle/page.html"
    return render(request, template, context, status=status)


def _pay(options: PayOptions | None, payee: str) -> Pay | None:
    if options is None:
        return None
    title = _("VietQR code to pay %(payee)s") % {"payee": payee}
    return Pay(options=options, qr_svg=qr_svg(options.vietqr, title) if options.vietqr else "")


def _payment_line(
    payment: Payment, names: dict[int, str], who: Callable[[Any, Any], str]
) -> PaymentLine:
    return PaymentLine(
        id=payment.pk,
        payer_name=names.get(payment.payer_id, "?"),
        payee_name=names.get(payment.payee_id, "?"),
        amount=payment.amount,
        paid_at=payment.paid_at,
        recorded_by=who(payment.recorded_by, payment.recorded_via),
        cancelled_at=payment.cancelled_at,
        cancelled_by=who(payment.cancelled_by, payment.cancelled_via),
    )


@session_page()
def settle(request: HttpRequest, page: SessionPage) -> HttpResponse:
    return _page(request, page)


@session_page(need=Role.SCORER, methods=("POST",))
def paid(request: HttpRequest, page: SessionPage) -> HttpResponse:
    """Pay one transfer in full, or (`undo`) cancel the payment of one; the others stay
    as they are (SPEC 5)."""
    form = TransferForm(request.POST)
    if not form.is_valid():
        return _page(request, page, message=first_error(form), status=400)
    data = form.cleaned_data
    mark = services.transfer_mark_unpaid if data["undo"] else services.transfer_mark_paid
    return write_and_show(
        request,
        page,
        data["key"],
        lambda: mark(
            session_id=page.session.pk,
            payer_id=data["payer"],
            payee_id=data["payee"],
            amount=data["amount"],
            actor=page.actor,
        ),
        screen=_page,
        then="settle",
    )


@session_page(need=Role.SCORER, methods=("POST",))
def payment(request: HttpRequest, page: SessionPage) -> HttpResponse:
    """Money paid from one player to another: part of a transfer, or any amount."""
    form = PaymentForm(request.POST)
    if not form.is_valid():
        return _page(request, page, message=first_error(form), status=400)
    data = form.cleaned_data
    return write_and_show(
        request,
        page,
        data["key"],
        lambda: services.payment_record(
            session_id=page.session.pk,
            payer_id=data["payer"],
            payee_id=data["payee"],
            amount=data["amount"],
            actor=page.actor,
        ),
        screen=_page,
        then="settle",
    )


@session_page(need=Role.SCORER, methods=("POST",))
def payment_cancel(request: HttpRequest, page: SessionPage) -> HttpResponse:
    """Cancel a payment; its row stays, naming who cancelled it."""
    form = PaymentCancelForm(request.POST)
    if not form.is_valid():
        return _page(request, page, message=first_error(form), status=400)
    data = form.cleaned_data
    return write_and_show(
        request,
        page,
        data["key"],
        lambda: services.payment_cancel(
            session_id=page.session.pk, payment_id=data["payment"], actor=page.actor
        ),
        screen=_page,
        then="settle",
    )
