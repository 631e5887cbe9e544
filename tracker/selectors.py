"""Reads: standings, settlement and deal views, each in a fixed number of queries however
long the session grows."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count, F, Q, Sum

import scoring
from scoring.settlement import settle
from tracker.models import Deal, DealEvent, DealPlayer, LedgerLine, Payment, Session, Tap
from tracker.services import deal_facts

# A deal counts once it is filed, or ended after someone went out (SPEC 3.3).
COUNTED = Q(status__in=[Deal.Status.FILED, Deal.Status.ENDED], winner__isnull=False)


def _counted(prefix: str) -> Q:
    return Q(**{f"{prefix}__{key}": value for key, value in COUNTED.children})


@dataclass
class StandingRow:
    player: int
    name: str
    points: int = 0
    deals: int = 0
    wins: int = 0
    podiums: int = 0
    losses: int = 0
    average_place: Decimal | None = None
    net: Decimal = Decimal("0")
    twos_beaten_made: int = 0
    twos_beaten_suffered: int = 0
    guaransheeds_won: int = 0
    guaransheeds_lost: int = 0


def session_standings(session: Session) -> list[StandingRow]:
    """SPEC 6 session standings, ordered by points, wins, net, then name.

    Queries: seats, per-player deal totals, money received, money paid, 2s beaten made,
    2s beaten suffered, Guaransheeds — seven, whatever the number of deals.
    """
    rows: dict[int, StandingRow] = {}
    for seat in session.seats.select_related("player"):
        rows[seat.player_id] = StandingRow(player=seat.player_id, name=seat.player.name)

    totals = (
        DealPlayer.objects.filter(_counted("deal"), deal__session=session)
        .values("player_id", "player__name")
        .annotate(
            total_points=Sum("points"),
            deal_count=Count("id"),
            win_count=Count("id", filter=Q(place=1)),
            podium_count=Count("id", filter=Q(points__gt=0)),
            loss_count=Count("id", filter=Q(deal__loser_id=F("player_id"))),
            place_total=Sum("place"),
            placed=Count("place"),
        )
    )
    for total in totals:
        row = rows.setdefault(
            total["player_id"], StandingRow(player=total["player_id"], name=total["player__name"])
        )
        row.points = total["total_points"] or 0
        row.deals = total["deal_count"]
        row.wins = total["win_count"]
        row.podiums = total["podium_count"]
        row.losses = total["loss_count"]
        if total["placed"]:
            row.average_place = (Decimal(total["place_total"]) / total["placed"]).quantize(
                Decimal("0.01")
            )

    for player_id, net in session_balances(session).items():
        if player_id in rows:
            rows[player_id].net = net

    twos = DealEvent.objects.filter(
        _counted("deal"), deal__session=session, undone_at__isnull=True, type="two_beaten"
    )
    for made in twos.values("by_id").annotate(count=Sum(F("black") + F("red"))):
        if made["by_id"] in rows:
            rows[made["by_id"]].twos_beaten_made = made["count"]
    for suffered in twos.values("owner_id").annotate(count=Sum(F("black") + F("red"))):
        if suffered["owner_id"] in rows:
            rows[suffered["owner_id"]].twos_beaten_suffered = suffered["count"]

    declarations = (
        DealEvent.objects.filter(
            _counted("deal"), deal__session=session, undone_at__isnull=True, type="guaransheed"
        )
        .values("player_id")
        .annotate(
            won=Count("id", filter=Q(deal__winner_id=F("player_id"))),
            declared=Count("id"),
        )
    )
    for declaration in declarations:
        if declaration["player_id"] in rows:
            row = rows[declaration["player_id"]]
            row.guaransheeds_won = declaration["won"]
            row.guaransheeds_lost = declaration["declared"] - declaration["won"]

    return sorted(
        rows.values(), key=lambda row: (-row.points, -row.wins, -row.net, row.name.lower())
    )


def session_balances(session: Session) -> dict[int, Decimal]:
    """Net money per player over the session's closed deals: received − paid.

    Two queries (money in, money out), summed in the database.
    """
    balances: dict[int, Decimal] = defaultdict(Decimal)
    lines = LedgerLine.objects.filter(session=session)
    for received in lines.values("payee_id").annotate(total=Sum("amount")):
        balances[received["payee_id"]] += received["total"]
    for paid in lines.values("payer_id").annotate(total=Sum("amount")):
        balances[paid["payer_id"]] -= paid["total"]
    return dict(balances)


@dataclass
class TransferView:
    payer: int
    payee: int
    amount: Decimal
    paid: bool = False
    payment: int | None = None


@dataclass
class Settlement:
    balances: dict[int, Decimal]
    transfers: list[TransferView] = field(default_factory=list)


def session_settlement(session: Session) -> Settlement:
    """Balances and the fewest transfers that clear them, with payments marked.

    The transfers are computed from the ledger alone, so marking one paid never
    reshuffles the others. Queries: money in, money out, payments — three.
    """
    balances = session_balances(session)
    payments = list(Payment.objects.filter(session=session, cancelled_at__isnull=True))
    views = []
    for transfer in settle(balances):
        view = TransferView(payer=transfer.payer, payee=transfer.payee, amount=transfer.amount)
        for payment in payments:
            if (payment.payer_id, payment.payee_id, payment.amount) == (
                transfer.payer,
                transfer.payee,
                transfer.amount,
            ):
                view.paid, view.payment = True, payment.pk
                payments.remove(payment)
                break
        views.append(view)
    return Settlement(balances=balances, transfers=views)


@dataclass
class DealView:
    deal: Deal
    taps: list[Tap]
    events: list[DealEvent]
    points: dict[int, int]
    ledger: list[scoring.LedgerLine]
    why: str
    next_deal: int | None


def deal_view(deal: Deal) -> DealView:
    """A deal as its screens and the API show it: an open deal's points are provisional
    and its ledger holds only the lines already certain (SPEC 9)."""
    taps = list(
        deal.taps.filter(undone_at__isnull=True).order_by("seq").prefetch_related("not_played")
    )
    events = list(deal.dealevents.filter(undone_at__isnull=True).order_by("seq"))
    records = sorted([*taps, *events], key=lambda row: row.seq)
    result = scoring.play(deal_facts(deal, records))
    next_deal = (
        Deal.objects.filter(session_id=deal.session_id, number=deal.number + 1)
        .values_list("pk", flat=True)
        .first()
    )
    return DealView(
        deal=deal,
        taps=taps,
        events=events,
        points=result.points,
        ledger=list(result.ledger),
        why=result.why,
        next_deal=next_deal,
    )
