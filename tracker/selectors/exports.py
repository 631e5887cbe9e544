"""Take your data with you: a session's ledger as CSV, and the names of the files the
pages and the API download (the JSON documents are `tracker.backup`'s). Every CSV goes
through `tracker.spreadsheets`."""

from __future__ import annotations

from datetime import date

from django.utils import timezone
from django.utils.text import slugify

from tracker.models import LedgerLine, Session
from tracker.money import money_text
from tracker.spreadsheets import csv_text

LEDGER_COLUMNS = ["deal", "from", "to", "amount", "currency", "reason", "time"]


def session_ledger_csv(session: Session) -> str:
    """Every ledger line of the session's closed deals, one a row, by deal and position:
    deal number, payer, payee, amount (as the API writes it), currency, reason (its stable
    code, as the API's `reason`), and when the deal closed (ISO 8601). One query."""
    lines = (
        LedgerLine.objects.filter(session=session)
        .select_related("deal", "payer", "payee")
        .order_by("deal__number", "position")
    )
    return csv_text(
        LEDGER_COLUMNS,
        (
            [
                line.deal.number,
                line.payer.name,
                line.payee.name,
                money_text(line.amount),
                session.currency,
                line.reason,
                line.deal.closed_at.isoformat() if line.deal.closed_at else "",
            ]
            for line in lines
        ),
    )


def download_name(name: str, what: str, extension: str, *, fallback: str) -> str:
    """`friday-table-ledger-2026-11-30.csv`: the thing's name in ASCII (or `fallback`
    when nothing of it is), what the file holds, today's date."""
    day: date = timezone.localdate()
    return f"{slugify(name) or fallback}-{what}-{day.isoformat()}.{extension}"
