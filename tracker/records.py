"""Stored rows <-> scoring facts, for the services (which write them) and the selectors
(which read them) alike.

A deal's taps and events are rows; `scoring` works on `DealFacts`. This module turns one
into the other, reads a deal as its screens and the API show it (`DealState`), and nets
ledger lines into balances.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Any, cast

from django.db.models import QuerySet, Sum

import scoring
import scoring.payments
from scoring.payments import MoneyPaid
from tracker.models import Deal, DealEvent, DealPlayer, LedgerLine, Payment, Session, Tap

LEDGER_PLACES = Decimal("0.001")

Row = Tap | DealEvent


# --- Rows and facts -----------------------------------------------------------------------


def live_records(deal: Deal) -> list[Row]:
    """The deal's taps and events that stand, in the order they were recorded."""
    taps = list(deal.taps.filter(undone_at__isnull=True).prefetch_related("not_played"))
    events = list(deal.dealevents.filter(undone_at__isnull=True))
    return sorted([*taps, *events], key=lambda row: row.seq)


def to_record(row: Row) -> scoring.Record:
    """The scoring fact a stored tap or event stands for."""
    if isinstance(row, Tap):
        return scoring.Tap(
            player=row.player_id,
            not_played=tuple(sorted(player.pk for player in row.not_played.all())),
            loser=row.loser,
        )
    # The columns are nullable, but `event_players_match_type` makes the ones each type
    # uses non-null; the casts say so to the type checker (no runtime effect).
    if row.type == DealEvent.Type.TWO_BEATEN:
        return scoring.TwoBeaten(
            by=cast(int, row.by_id),
            owner=cast(int, row.owner_id),
            beaten_with=scoring.Beater(row.beaten_with),
            black=row.black,
            red=row.red,
        )
    if row.type == DealEvent.Type.CUTUP_BEATEN:
        return scoring.CutupBeaten(by=cast(int, row.by_id), owner=cast(int, row.owner_id))
    if row.type == DealEvent.Type.HAND:
        return scoring.Hand(
            player=cast(int, row.player_id),
            cards=row.cards,
            black_twos=row.black_twos,
            red_twos=row.red_twos,
            cutups=row.cutups,
            bombs=row.bombs,
        )
    if row.type == DealEvent.Type.GUARANSHEED:
        return scoring.Guaransheed(player=cast(int, row.player_id), blind=row.blind)
    return scoring.InstantWin(
        player=cast(int, row.player_id), kind=scoring.InstantWinKind(row.kind)
    )


def event_fields(record: scoring.Record) -> dict[str, object]:
    """The DealEvent fields that store a scoring fact (the inverse of `to_record`)."""
    if isinstance(record, scoring.TwoBeaten):
        return {
            "type": DealEvent.Type.TWO_BEATEN,
            "by_id": record.by,
            "owner_id": record.owner,
            "beaten_with": record.beaten_with.value,
            "black": record.black,
            "red": record.red,
        }
    if isinstance(record, scoring.CutupBeaten):
        return {"type": DealEvent.Type.CUTUP_BEATEN, "by_id": record.by, "owner_id": record.owner}
    if isinstance(record, scoring.Hand):
        return {
            "type": DealEvent.Type.HAND,
            "player_id": record.player,
            "cards": record.cards,
            "black_twos": record.black_twos,
            "red_twos": record.red_twos,
            "cutups": record.cutups,
            "bombs": record.bombs,
        }
    if isinstance(record, scoring.Guaransheed):
        return {
            "type": DealEvent.Type.GUARANSHEED,
            "player_id": record.player,
            "blind": record.blind,
        }
    if isinstance(record, scoring.InstantWin):
        return {
            "type": DealEvent.Type.INSTANT_WIN,
            "player_id": record.player,
            "kind": record.kind.value,
        }
    raise TypeError(f"Not an event: {record!r}")


# The scoring fact each type of event stands for, and its fields that are enums.
EVENT_RECORDS: dict[str, type[scoring.Record]] = {
    DealEvent.Type.TWO_BEATEN: scoring.TwoBeaten,
    DealEvent.Type.CUTUP_BEATEN: scoring.CutupBeaten,
    DealEvent.Type.HAND: scoring.Hand,
    DealEvent.Type.GUARANSHEED: scoring.Guaransheed,
    DealEvent.Type.INSTANT_WIN: scoring.InstantWin,
}
_ENUMS: dict[str, type[StrEnum]] = {
    "beaten_with": scoring.Beater,
    "kind": scoring.InstantWinKind,
}


def event_record(kind: str, sent: Mapping[str, Any]) -> scoring.Record:
    """An event of type `kind` as scoring reads it, from what a door read: a page form's
    cleaned data or an API serializer's validated data. A field may be under the record's
    own name (`by`) or the stored one (`by_id`); one left empty takes the record's default
    (no 2s, no bombs)."""
    record = EVENT_RECORDS[kind]
    values: dict[str, Any] = {}
    for attribute in dataclasses.fields(record):
        value = sent.get(attribute.name, sent.get(f"{attribute.name}_id"))
        if value is not None:
            enum = _ENUMS.get(attribute.name)
            values[attribute.name] = enum(value) if enum is not None else value
    return record(**values)


def seated_players(deal: Deal) -> list[DealPlayer]:
    """The deal's players in seat order, with their players (names) loaded."""
    return list(deal.deal_players.select_related("player").order_by("seat"))


def deal_facts(
    deal: Deal,
    rows: Iterable[Row] | None = None,
    deal_players: Sequence[DealPlayer] | None = None,
) -> scoring.DealFacts:
    """The scoring facts of a stored deal (its session must be loaded). `rows` and
    `deal_players` (seat order, players loaded), when the caller has read them."""
    if deal_players is None:
        deal_players = seated_players(deal)
    if rows is None:
        rows = live_records(deal)
    return scoring.DealFacts(
        players=tuple(dp.player_id for dp in deal_players),
        rules=deal.session.rules,
        records=tuple(to_record(row) for row in rows),
        ended=deal.status == Deal.Status.ENDED,
        names={dp.player_id: dp.player.name for dp in deal_players},
    )


def snapshot(facts: scoring.DealFacts, result: scoring.DealResult) -> dict[str, Any]:
    """A deal's records, points and ledger as JSON, for a correction's before and after."""
    return {
        "status": result.status.value,
        "records": [_describe(record) for record in facts.records],
        "points": {str(player): points for player, points in result.points.items()},
        "ledger": [
            {
                "from": line.payer,
                "to": line.payee,
                "amount": str(line.amount),
                "reason": line.reason.value,
            }
            for line in result.ledger
        ],
    }


def _describe(record: scoring.Record) -> dict[str, Any]:
    description: dict[str, Any] = {"type": type(record).__name__}
    for name, value in vars(record).items():
        description[name] = (
            value.value
            if hasattr(value, "value")
            else (list(value) if isinstance(value, tuple) else value)
        )
    return description


# --- A deal as it is shown ----------------------------------------------------------------


@dataclass(frozen=True)
class DealState:
    """A deal as its screens and the API show it: an open deal's points are provisional
    and its ledger holds only the lines already certain (SPEC 9)."""

    deal: Deal
    players: list[DealPlayer]  # seat order, players loaded, places and points as stored
    taps: list[Tap]  # that stand, in order, their not-played marks loaded
    events: list[DealEvent]  # that stand, in order
    facts: scoring.DealFacts
    result: scoring.DealResult
    next_deal: int | None

    @property
    def names(self) -> dict[int, str]:
        return {dp.player_id: dp.player.name for dp in self.players}


def deal_state(
    deal: Deal,
    *,
    rows: Sequence[Row],
    deal_players: list[DealPlayer],
    result: scoring.DealResult,
    facts: scoring.DealFacts,
    next_deal: int | None,
) -> DealState:
    """What a write already knows, as a `DealState` (nothing read back)."""
    return DealState(
        deal=deal,
        players=deal_players,
        taps=[row for row in rows if isinstance(row, Tap)],
        events=[row for row in rows if isinstance(row, DealEvent)],
        facts=facts,
        result=result,
        next_deal=next_deal,
    )


def read_deal_state(deal: Deal, deal_players: list[DealPlayer] | None = None) -> DealState:
    """A stored deal as a `DealState` (its session must be loaded).

    Queries: its players (unless given), its taps and their not-played marks, its events,
    the next deal's id: five, however long the session.
    """
    if deal_players is None:
        deal_players = seated_players(deal)
    rows = live_records(deal)
    facts = deal_facts(deal, rows, deal_players)
    next_deal = (
        Deal.objects.filter(session_id=deal.session_id, number=deal.number + 1)
        .values_list("pk", flat=True)
        .first()
    )
    return deal_state(
        deal,
        rows=rows,
        deal_players=deal_players,
        facts=facts,
        result=scoring.play(facts),
        next_deal=next_deal,
    )


# --- Money --------------------------------------------------------------------------------


def nets(lines: QuerySet[LedgerLine], group: str | None = None) -> dict[Any, dict[int, Decimal]]:
    """Net money per player over `lines` (received − paid), apart for each value of the
    field `group` (all together under None when there is none). Two queries, money in and
    money out, summed in the database."""
    fields = [group] if group else []
    totals: dict[Any, dict[int, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for side, sign in (("payee_id", 1), ("payer_id", -1)):
        for total in lines.values(*fields, side).annotate(amount=Sum("amount")):
            totals[total[group] if group else None][total[side]] += sign * total["amount"]
    # The same scale on every database (SQLite's sums drop trailing zeros).
    return {
        key: {player: net.quantize(LEDGER_PLACES) for player, net in by_player.items()}
        for key, by_player in totals.items()
    }


def money_text(amount: Decimal) -> str:
    """Money as the API and the CSV export write it: cents when they say it all, else the
    ledger's third decimal ("2.50", "0.375")."""
    cents = amount.quantize(Decimal("0.01"))
    shown = cents if cents == amount else amount.quantize(Decimal("0.001"))
    return f"{shown + 0:f}"  # + 0 turns -0.00 into 0.00


def balances(lines: QuerySet[LedgerLine]) -> dict[int, Decimal]:
    """Net money per player over `lines`: received − paid."""
    return nets(lines).get(None, {})


@dataclass
class TransferView:
    """A transfer of the settlement: still to pay (`amount` is what is left, `paid_so_far`
    what part payments took off it), or paid in full (`paid`, by payment `payment`)."""

    payer: int
    payee: int
    amount: Decimal
    paid: bool = False
    payment: int | None = None
    paid_so_far: Decimal = Decimal(0)


@dataclass
class Settlement:
    """A session's money: the ledger's balances, what is still owed after the payments,
    the transfers (open ones, and those paid in full, by payer and payee) and every
    payment, cancelled ones too, oldest first."""

    balances: dict[int, Decimal]
    transfers: list[TransferView] = field(default_factory=list)
    owed: dict[int, Decimal] = field(default_factory=dict)
    payments: list[Payment] = field(default_factory=list)
    settled: bool = True
    open_amount: Decimal = Decimal(0)

    @property
    def open_transfers(self) -> list[TransferView]:
        return [transfer for transfer in self.transfers if not transfer.paid]


def money_paid(payments: Iterable[Payment]) -> list[MoneyPaid]:
    """The payments that stand, as scoring reads them, oldest first."""
    standing = (payment for payment in payments if payment.cancelled_at is None)
    return [
        MoneyPaid(
            ref=payment.pk, payer=payment.payer_id, payee=payment.payee_id, amount=payment.amount
        )
        for payment in sorted(standing, key=lambda payment: (payment.paid_at, payment.pk))
    ]


def _settlement(balances: dict[int, Decimal], payments: list[Payment]) -> Settlement:
    result = scoring.payments.outstanding(balances, money_paid(payments))
    transfers = [
        TransferView(
            payer=transfer.payer,
            payee=transfer.payee,
            amount=transfer.amount,
            paid_so_far=transfer.paid,
        )
        for transfer in result.transfers
    ] + [
        TransferView(
            payer=transfer.payer,
            payee=transfer.payee,
            amount=transfer.amount,
            paid=True,
            payment=transfer.payments[-1],
        )
        for transfer in result.paid
    ]
    return Settlement(
        balances=balances,
        transfers=sorted(transfers, key=lambda t: (t.payer, t.payee, t.paid)),
        owed={player: owed.quantize(LEDGER_PLACES) for player, owed in result.owed.items()},
        payments=payments,
        settled=result.settled,
        open_amount=result.open_amount.quantize(LEDGER_PLACES),
    )


def settlement_of(session: Session) -> Settlement:
    """Balances, what is still owed after the payments, and the fewest transfers that
    clear it (`scoring.payments`: paying a transfer never reshuffles the others; a
    correction after a payment shows the refund). Queries: money in, money out, the
    payments with who recorded and cancelled them — three."""
    session_balances = balances(LedgerLine.objects.filter(session=session))
    payments = list(
        Payment.objects.filter(session=session)
        .select_related("recorded_by", "recorded_via", "cancelled_by", "cancelled_via")
        .order_by("paid_at", "pk")
    )
    return _settlement(session_balances, payments)


def settlements_of(session_ids: Iterable[int]) -> dict[int, Settlement]:
    """The settlement of each session (for lists: which still have money open, and how
    much). Queries: money in, money out, payments — three, however many sessions."""
    ids = list(session_ids)
    by_session = nets(LedgerLine.objects.filter(session_id__in=ids), "session_id")
    payments: dict[int, list[Payment]] = defaultdict(list)
    for payment in Payment.objects.filter(session_id__in=ids).order_by("paid_at", "pk"):
        payments[payment.session_id].append(payment)
    return {
        session_id: _settlement(by_session.get(session_id, {}), payments[session_id])
        for session_id in ids
    }
