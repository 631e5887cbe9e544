"""Session standings (SPEC 6): one row a player, read from the running totals."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from django.db import connection
from django.db.models import Count, F, Q, QuerySet, Sum

import scoring
from tracker.models import (
    Deal,
    DealEvent,
    DealPlayer,
    LedgerLine,
    Player,
    Seat,
    Session,
    StandingTally,
    counted,
)
from tracker.money import LEDGER_PLACES, balances
from tracker.rows import all_with


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
    # Who is at the table now, and everyone who played a counted deal; read by hand
    # (`tracker.rows`): every first read after a filing runs it, and the ORM took longer
    # to build it than to run it.
    seats = connection.ops.quote_name(Seat._meta.db_table)
    at_the_table = (
        f"t0.deals > 0 OR t0.player_id IN (SELECT player_id FROM {seats} WHERE session_id = %s)"
    )
    tallies = all_with(
        StandingTally, ("player",), "session", session.pk, where=at_the_table, params=[session.pk]
    )
    for tally in tallies:
        row = StandingRow(
            player=tally.player_id,
            name=tally.player.name,
            net=tally.net.quantize(LEDGER_PLACES),
            **{name: getattr(tally, name) for name in StandingTally.TOTALS if name != "net"},
        )
        if row.placed:
            row.average_place = (Decimal(row.place_total) / row.placed).quantize(Decimal("0.01"))
        rows.append(row)
    return in_standings_order(rows)


def standings_by_aggregate(session: Session) -> list[StandingRow]:
    """The session standings summed over every counted deal (seven queries, each growing
    with the session): the reference the running totals are checked against."""
    seated = [seat.player for seat in session.seats.select_related("player")]
    return standings_over(
        seated, deals=Q(session=session), ledger=LedgerLine.objects.filter(session=session)
    )


def in_standings_order(rows: Iterable[StandingRow]) -> list[StandingRow]:
    return sorted(rows, key=lambda row: (-row.points, -row.wins, -row.net, row.name.lower()))


def standings_over(
    players: Iterable[Player], *, deals: Q, ledger: QuerySet[LedgerLine]
) -> list[StandingRow]:
    """Standings over the counted deals that `deals` (a filter on Deal) selects."""
    rows = {player.pk: StandingRow(player=player.pk, name=player.name) for player in players}
    counted_deals = Deal.objects.filter(deals, counted())

    totals = (
        DealPlayer.objects.filter(deal__in=counted_deals)
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

    for player_id, net in balances(ledger).items():
        if player_id in rows:
            rows[player_id].net = net

    events = DealEvent.objects.filter(deal__in=counted_deals, undone_at__isnull=True)
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

    return in_standings_order(rows.values())


# The last deals joined to their seats directly: the deals' numbers come with them, where
# `seat.deal_id IN (...)` joined the deal table a second time for them (a third of the
# statement's time on PostgreSQL, issue 15).
_POINTS_BY_DEAL = """
SELECT deal.number, seat.player_id, seat.points
FROM (
    SELECT id, number FROM {deal} WHERE session_id = %s AND status IN ({statuses})
    AND winner_id IS NOT NULL ORDER BY number DESC LIMIT %s
) deal INNER JOIN {deal_player} seat ON seat.deal_id = deal.id
ORDER BY deal.number, seat.seat
"""


def session_points_by_deal(
    session: Session, *, last: int
) -> tuple[int, list[tuple[int, dict[int, int]]]]:
    """How many deals count, and the points per player of the `last` of them, oldest first
    (the standings' sparklines).

    One query, reading at most `last` deals however long the session. The count is the
    newest counted deal's number: deals are numbered 1, 2, 3... and every deal before
    the open (or ended, winnerless) one counts.
    """
    # Written by hand: every first read of the standings after a filing runs it, and the
    # ORM took longer to build it than to run it. `counted()` said in SQL, as the
    # running totals' test holds the ORM's (tests/selectors: the same answer both ways).
    statuses = sorted(status.value for status in scoring.COUNTED_STATUSES)
    quote = connection.ops.quote_name
    sql = _POINTS_BY_DEAL.format(
        deal=quote(Deal._meta.db_table),
        deal_player=quote(DealPlayer._meta.db_table),
        statuses=", ".join(["%s"] * len(statuses)),
    )
    by_deal: dict[int, dict[int, int]] = {}
    with connection.cursor() as cursor:
        cursor.execute(sql, [session.pk, *statuses, last])
        rows = cursor.fetchall()
    for number, player, points in rows:
        by_deal.setdefault(number, {})[player] = points
    return max(by_deal, default=0), sorted(by_deal.items())
