"""Reads: standings, settlement and deal views, each in a fixed number of queries however
long the session grows."""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import Count, F, Q, QuerySet, Sum
from django.utils.translation import gettext

import scoring
from scoring.rating import finishing_ranks, rate
from scoring.settlement import settle
from tracker.models import (
    Circle,
    Deal,
    DealEvent,
    DealPlayer,
    LedgerLine,
    Payment,
    Player,
    Session,
    StandingTally,
    Tap,
)
from tracker.services import deal_facts

LEDGER_PLACES = Decimal("0.001")

# A deal counts once it is filed, or ended after someone went out (SPEC 3.3).
COUNTED = Q(status__in=[Deal.Status.FILED, Deal.Status.ENDED], winner__isnull=False)


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
    place_total: int = 0  # with `placed`, what average_place is made of
    placed: int = 0
    net: Decimal = Decimal("0")
    twos_beaten_made: int = 0
    twos_beaten_suffered: int = 0
    guaransheeds_won: int = 0
    guaransheeds_lost: int = 0


def session_standings(session: Session) -> list[StandingRow]:
    """SPEC 6 session standings, ordered by points, wins, net, then name.

    Read from the running totals the services keep (one query, a row a player), so the
    cost does not grow with the number of deals; `standings_by_aggregate` sums the same
    columns over every deal and the tests hold the two equal.
    """
    rows = []
    # Who is at the table now, and everyone who played a counted deal.
    seated = Q(player_id__in=session.seats.values("player_id"))
    for tally in session.tallies.filter(seated | Q(deals__gt=0)).select_related("player"):
        row = StandingRow(
            player=tally.player_id,
            name=tally.player.name,
            net=tally.net.quantize(LEDGER_PLACES),
            **{name: getattr(tally, name) for name in StandingTally.TOTALS if name != "net"},
        )
        if row.placed:
            row.average_place = (Decimal(row.place_total) / row.placed).quantize(Decimal("0.01"))
        rows.append(row)
    return _in_standings_order(rows)


def standings_by_aggregate(session: Session) -> list[StandingRow]:
    """The session standings summed over every counted deal (seven queries, each growing
    with the session): the reference the running totals are checked and rebuilt against."""
    seated = [seat.player for seat in session.seats.select_related("player")]
    return _standings(
        seated, deals=Q(session=session), ledger=LedgerLine.objects.filter(session=session)
    )


def _in_standings_order(rows: Iterable[StandingRow]) -> list[StandingRow]:
    return sorted(rows, key=lambda row: (-row.points, -row.wins, -row.net, row.name.lower()))


def _standings(
    players: Iterable[Player], *, deals: Q, ledger: QuerySet[LedgerLine]
) -> list[StandingRow]:
    """Standings over the counted deals that `deals` (a filter on Deal) selects."""
    rows = {player.pk: StandingRow(player=player.pk, name=player.name) for player in players}
    counted = Deal.objects.filter(deals, COUNTED)

    totals = (
        DealPlayer.objects.filter(deal__in=counted)
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
        row.place_total, row.placed = total["place_total"] or 0, total["placed"]
        if total["placed"]:
            row.average_place = (Decimal(total["place_total"]) / total["placed"]).quantize(
                Decimal("0.01")
            )

    for player_id, net in _balances(ledger).items():
        if player_id in rows:
            rows[player_id].net = net

    events = DealEvent.objects.filter(deal__in=counted, undone_at__isnull=True)
    twos = events.filter(type=DealEvent.Type.TWO_BEATEN)
    for made in twos.values("by_id").annotate(count=Sum(F("black") + F("red"))):
        if made["by_id"] in rows:
            rows[made["by_id"]].twos_beaten_made = made["count"]
    for suffered in twos.values("owner_id").annotate(count=Sum(F("black") + F("red"))):
        if suffered["owner_id"] in rows:
            rows[suffered["owner_id"]].twos_beaten_suffered = suffered["count"]

    declarations = (
        events.filter(type=DealEvent.Type.GUARANSHEED)
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

    return _in_standings_order(rows.values())


@dataclass
class LeaderboardRow(StandingRow):
    skill: float = 0.0
    mu: float = 0.0
    sigma: float = 0.0
    # `net` adds amounts as they are; sessions may play for different currencies, so this
    # keeps each currency's net apart (only currencies the player's money moved in).
    net_by_currency: dict[str, Decimal] = field(default_factory=dict)


@dataclass(frozen=True)
class HeadToHead:
    player: int
    opponent: int
    ahead: int  # deals both played where `player` finished above `opponent`
    behind: int


@dataclass
class Leaderboard:
    rows: list[LeaderboardRow]
    head_to_head: list[HeadToHead]
    # Per player, running totals after each counted deal they played: (deal, points, net).
    series: dict[int, list[tuple[int, int, Decimal]]]
    # The counted deals of the range in the order they closed.
    deal_order: list[int]
    # The currencies money moved in over the range; more than one makes `net` a mix.
    currencies: list[str]


def circle_leaderboard(
    circle: Circle, *, since: datetime | None = None, until: datetime | None = None
) -> Leaderboard:
    """SPEC 6 circle leaderboard across sessions (optionally a date range of deals closed):
    the standings columns summed, a skill rating, head-to-head records and chart series.

    Queries: players and the standings' sums (7), deal finishes, ledger lines, and money
    in and money out per currency: 11.
    """
    deals = Q(session__circle=circle)
    if since is not None:
        deals &= Q(closed_at__gte=since)
    if until is not None:
        deals &= Q(closed_at__lt=until)
    counted = Deal.objects.filter(deals, COUNTED)
    standings = _standings(
        circle.players.all(), deals=deals, ledger=LedgerLine.objects.filter(deal__in=counted)
    )

    finishes: dict[int, list[tuple[int, int | None, int]]] = defaultdict(list)
    for deal_id, player_id, place, points in (
        DealPlayer.objects.filter(deal__in=counted)
        .order_by("deal__closed_at", "deal_id", "seat")
        .values_list("deal_id", "player_id", "place", "points")
    ):
        finishes[deal_id].append((player_id, place, points))
    money: dict[int, dict[int, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for deal_id, payer, payee, amount in LedgerLine.objects.filter(deal__in=counted).values_list(
        "deal_id", "payer_id", "payee_id", "amount"
    ):
        money[deal_id][payer] -= amount
        money[deal_id][payee] += amount

    ordered = [
        ([player for player, _, _ in finish], {p: place for p, place, _ in finish if place})
        for finish in finishes.values()
    ]
    skills = rate(ordered)

    pairs: dict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0])
    series: dict[int, list[tuple[int, int, Decimal]]] = defaultdict(list)
    totals: dict[int, tuple[int, Decimal]] = defaultdict(lambda: (0, Decimal(0)))
    for deal_id, finish in finishes.items():
        ranks = dict(
            zip(
                [player for player, _, _ in finish],
                finishing_ranks(
                    [player for player, _, _ in finish],
                    {p: place for p, place, _ in finish if place},
                ),
                strict=True,
            )
        )
        for player, _, points in finish:
            for opponent in ranks:
                if opponent != player and ranks[player] != ranks[opponent]:
                    pairs[(player, opponent)][0 if ranks[player] < ranks[opponent] else 1] += 1
            running_points, running_net = totals[player]
            totals[player] = (
                running_points + points,
                running_net + money[deal_id].get(player, Decimal(0)),
            )
            series[player].append((deal_id, *totals[player]))

    nets = _nets_by_currency(LedgerLine.objects.filter(deal__in=counted))
    rows = []
    for row in standings:
        skill = skills.get(row.player)
        rows.append(
            LeaderboardRow(
                **vars(row),
                skill=round(skill.ordinal, 2) if skill else 0.0,
                mu=round(skill.mu, 2) if skill else 0.0,
                sigma=round(skill.sigma, 2) if skill else 0.0,
                net_by_currency={
                    code: by_player[row.player]
                    for code, by_player in sorted(nets.items())
                    if row.player in by_player
                },
            )
        )
    return Leaderboard(
        rows=rows,
        head_to_head=[
            HeadToHead(player=a, opponent=b, ahead=ahead, behind=behind)
            for (a, b), (ahead, behind) in sorted(pairs.items())
        ],
        series=dict(series),
        deal_order=list(finishes),
        currencies=sorted(nets),
    )


def _nets_by_currency(lines: QuerySet[LedgerLine]) -> dict[str, dict[int, Decimal]]:
    """`_balances` a currency at a time: {currency: {player: net}}."""
    return _balances_by(lines, "session__currency")


LEADERBOARD_COLUMNS = [
    "name",
    "points",
    "deals",
    "wins",
    "podiums",
    "losses",
    "average_place",
    "net",
    "twos_beaten_made",
    "twos_beaten_suffered",
    "guaransheeds_won",
    "guaransheeds_lost",
    "skill",
]


def money_text(amount: Decimal) -> str:
    """Cents when they say it all, else the ledger's third decimal: "2.50", "0.375"."""
    cents = amount.quantize(Decimal("0.01"))
    shown = cents if cents == amount else amount.quantize(Decimal("0.001"))
    return f"{shown + 0:f}"  # + 0 turns -0.00 into 0.00


def leaderboard_csv(leaderboard: Leaderboard) -> str:
    """The leaderboard as CSV, one row a player, in leaderboard order; money as the API
    writes it ("3.00"). When the range mixes currencies, `net` stays empty and a
    `net <CODE>` column a currency follows."""
    mixed = leaderboard.currencies if len(leaderboard.currencies) > 1 else []
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([*LEADERBOARD_COLUMNS, *(f"net {code}" for code in mixed)])
    for row in leaderboard.rows:
        values = [
            "" if value is None else money_text(value) if column == "net" else value
            for column in LEADERBOARD_COLUMNS
            for value in [getattr(row, column)]
        ]
        if mixed:
            values[LEADERBOARD_COLUMNS.index("net")] = ""
        writer.writerow(
            [
                *values,
                *(
                    money_text(row.net_by_currency[code]) if code in row.net_by_currency else ""
                    for code in mixed
                ),
            ]
        )
    return out.getvalue()


def session_balances(session: Session) -> dict[int, Decimal]:
    """Net money per player over the session's closed deals: received − paid.

    Two queries (money in, money out), summed in the database.
    """
    return _balances(LedgerLine.objects.filter(session=session))


def _balances(lines: QuerySet[LedgerLine]) -> dict[int, Decimal]:
    """Net money per player over `lines`: received − paid."""
    return _balances_by(lines, None).get(None, {})


def _balances_by(lines: QuerySet[LedgerLine], group: str | None) -> dict[Any, dict[int, Decimal]]:
    """Net money per player over `lines`, apart for each value of the field `group` (all
    together under None when there is none). Two queries, money in and money out, summed
    in the database."""
    fields = [group] if group else []
    nets: dict[Any, dict[int, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for side, sign in (("payee_id", 1), ("payer_id", -1)):
        for total in lines.values(*fields, side).annotate(amount=Sum("amount")):
            nets[total[group] if group else None][total[side]] += sign * total["amount"]
    # The same scale on every database (SQLite's sums drop trailing zeros).
    return {
        key: {player: net.quantize(LEDGER_PLACES) for player, net in by_player.items()}
        for key, by_player in nets.items()
    }


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


def deal_view(deal: Deal, deal_players: list[DealPlayer] | None = None) -> DealView:
    """A deal as its screens and the API show it: an open deal's points are provisional
    and its ledger holds only the lines already certain (SPEC 9). `deal_players`, if the
    caller read them, are in seat order with their players."""
    taps = list(
        deal.taps.filter(undone_at__isnull=True).order_by("seq").prefetch_related("not_played")
    )
    events = list(deal.dealevents.filter(undone_at__isnull=True).order_by("seq"))
    records: list[Tap | DealEvent] = sorted([*taps, *events], key=lambda row: row.seq)
    result = scoring.play(deal_facts(deal, records, deal_players))
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
        why=result.why.render(gettext),
        next_deal=next_deal,
    )


# --- API reads (issue 3) ------------------------------------------------------------------


def session_queryset() -> QuerySet[Session]:
    """Sessions with what their detail shows: circle, seats with players in seat order,
    and the open deal as `open_deals` — three queries for any number of sessions."""
    from django.db.models import Prefetch

    from tracker.models import Seat

    return Session.objects.select_related("circle").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("player").order_by("position")),
        Prefetch(
            "deals", queryset=Deal.objects.filter(status=Deal.Status.OPEN), to_attr="open_deals"
        ),
    )


def session_deals(session: Session) -> QuerySet[Deal]:
    """The session's deals newest first, each with its players in seat order: a page of
    them costs two queries."""
    from django.db.models import Prefetch

    return session.deals.order_by("-number").prefetch_related(
        Prefetch("deal_players", queryset=DealPlayer.objects.order_by("seat"))
    )


@dataclass
class DealDetail:
    view: DealView
    players: list[DealPlayer]


def deal_detail(deal: Deal) -> DealDetail:
    """`deal_view` plus the deal's players with seat, stored place and points (read once,
    for both), whatever the session's length. Right after a tap or an event the deal
    carries what the write knew (`deal.written`), and nothing is read back."""
    written = deal.written
    if written is not None:
        view = DealView(
            deal=deal,
            taps=[row for row in written.records if isinstance(row, Tap)],
            events=[row for row in written.records if isinstance(row, DealEvent)],
            points=written.result.points,
            ledger=list(written.result.ledger),
            why=written.result.why.render(gettext),
            next_deal=written.next_deal,
        )
        return DealDetail(view=view, players=written.deal_players)
    players = list(deal.deal_players.select_related("player").order_by("seat"))
    return DealDetail(view=deal_view(deal, players), players=players)


def deal_events(deal: Deal) -> list[DealEvent]:
    """The events that stand on a deal, in the order they were recorded."""
    return list(deal.dealevents.filter(undone_at__isnull=True).order_by("seq"))


# --- Pages --------------------------------------------------------------------------------


def session_points_by_deal(session: Session) -> list[tuple[int, dict[int, int]]]:
    """Each counted deal's points per player, oldest first (the standings' sparklines).

    One query, whatever the number of deals.
    """
    by_deal: dict[int, dict[int, int]] = {}
    rows = (
        DealPlayer.objects.filter(
            deal__session=session,
            deal__status__in=[Deal.Status.FILED, Deal.Status.ENDED],
            deal__winner__isnull=False,
        )
        .order_by("deal__number", "seat")
        .values_list("deal__number", "player_id", "points")
    )
    for number, player, points in rows:
        by_deal.setdefault(number, {})[player] = points
    return sorted(by_deal.items())


def session_deal_history(session: Session) -> list[Deal]:
    """The session's deals newest first, with what the history page shows of each:
    players (with names), the taps and events that stand, and the ledger.

    Queries: deals, players, taps, events, ledger lines — five, whatever the number of
    deals. Live taps and events are on `live_taps` and `live_events`.
    """
    return list(_with_records(session.deals.order_by("-number")))


def session_deal_numbered(session: Session, number: int) -> Deal | None:
    """One deal of the session by number, prefetched like `session_deal_history`."""
    return _with_records(session.deals.filter(number=number)).first()


def _with_records(deals: QuerySet[Deal]) -> QuerySet[Deal]:
    from django.db.models import Prefetch

    return deals.prefetch_related(
        Prefetch(
            "deal_players",
            queryset=DealPlayer.objects.select_related("player").order_by("seat"),
        ),
        Prefetch(
            "taps",
            queryset=Tap.objects.filter(undone_at__isnull=True).order_by("seq"),
            to_attr="live_taps",
        ),
        Prefetch(
            "dealevents",
            queryset=DealEvent.objects.filter(undone_at__isnull=True).order_by("seq"),
            to_attr="live_events",
        ),
        Prefetch("ledger_lines", queryset=LedgerLine.objects.order_by("position")),
    )
