"""The circle leaderboard (SPEC 6) across sessions: its range of days, its rows, skill,
head-to-head records and chart series, and the same as CSV with its file name — one
definition each, for the API and the pages alike."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext_noop

from scoring.rating import finishing_ranks, rate
from tracker.errors import Invalid
from tracker.models import Circle, Deal, DealPlayer, LedgerLine, counted
from tracker.money import money_text, nets
from tracker.selectors.standings import StandingRow, standings_over
from tracker.spreadsheets import csv_text

SINCE_AFTER_UNTIL = gettext_noop(
    "since (%(since)s) is after until (%(until)s); send a since on or before the until."
)


@dataclass(frozen=True)
class DayRange:
    """Whole days, both included, in the server's time zone; None is no bound."""

    since: date | None = None
    until: date | None = None

    def __post_init__(self) -> None:
        if self.since is not None and self.until is not None and self.since > self.until:
            raise Invalid(
                SINCE_AFTER_UNTIL, code="range_reversed", since=self.since, until=self.until
            )

    def bounds(self) -> tuple[datetime | None, datetime | None]:
        """The half-open window the deals' closing times fall in: from 00:00 of `since` to
        00:00 of the day after `until`. The first and last days Python knows mean no bound
        at all (there is no day after 9999-12-31, nor room before 0001-01-01 in a zone
        ahead of UTC)."""
        zone = timezone.get_current_timezone()
        start = end = None
        if self.since is not None and self.since > date.min:
            start = datetime.combine(self.since, time.min, tzinfo=zone)
        if self.until is not None and self.until < date.max:
            end = datetime.combine(self.until + timedelta(days=1), time.min, tzinfo=zone)
        return start, end

    def csv_filename(self, circle: Circle) -> str:
        """`friday-table-leaderboard-from-2025-02-01-to-2025-02-28.csv`; a name with
        nothing ASCII in it goes by its id."""
        days = ""
        if self.since is not None:
            days += f"-from-{self.since.isoformat()}"
        if self.until is not None:
            days += f"-to-{self.until.isoformat()}"
        return f"{slugify(circle.name) or f'circle-{circle.pk}'}-leaderboard{days}.csv"


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


def circle_leaderboard(circle: Circle, days: DayRange = DayRange()) -> Leaderboard:
    """SPEC 6 circle leaderboard across sessions (deals closed within `days`): the
    standings columns summed, a skill rating, head-to-head records and chart series.

    Queries: players and the standings' sums (7), deal finishes, ledger lines, and money
    in and money out per currency: 11.
    """
    deals = Q(session__circle=circle)
    since, until = days.bounds()
    if since is not None:
        deals &= Q(closed_at__gte=since)
    if until is not None:
        deals &= Q(closed_at__lt=until)
    counted_deals = Deal.objects.filter(deals, counted())
    standings = standings_over(
        circle.players.all(), deals=deals, ledger=LedgerLine.objects.filter(deal__in=counted_deals)
    )

    finishes: dict[int, list[tuple[int, int | None, int]]] = defaultdict(list)
    for deal_id, player_id, place, points in (
        DealPlayer.objects.filter(deal__in=counted_deals)
        .order_by("deal__closed_at", "deal_id", "seat")
        .values_list("deal_id", "player_id", "place", "points")
    ):
        finishes[deal_id].append((player_id, place, points))
    money: dict[int, dict[int, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for deal_id, payer, payee, amount in LedgerLine.objects.filter(
        deal__in=counted_deals
    ).values_list("deal_id", "payer_id", "payee_id", "amount"):
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
    for (players, places), (deal_id, finish) in zip(ordered, finishes.items(), strict=True):
        ranks = dict(zip(players, finishing_ranks(players, places), strict=True))
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

    by_currency = nets(LedgerLine.objects.filter(deal__in=counted_deals), "session__currency")
    rows = []
    # Players with a deal in the range, and no one else: the page, the API and the CSV
    # all list these.
    for row in (row for row in standings if row.deals):
        skill = skills.get(row.player)
        rows.append(
            LeaderboardRow(
                **vars(row),
                skill=round(skill.ordinal, 2) if skill else 0.0,
                mu=round(skill.mu, 2) if skill else 0.0,
                sigma=round(skill.sigma, 2) if skill else 0.0,
                net_by_currency={
                    code: by_player[row.player]
                    for code, by_player in sorted(by_currency.items())
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
        currencies=sorted(by_currency),
    )


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


def leaderboard_csv(leaderboard: Leaderboard) -> str:
    """The leaderboard as CSV, one row a player, in leaderboard order; money as the API
    writes it ("3.00"). When the range mixes currencies, `net` stays empty and a
    `net <CODE>` column a currency follows. Safe to open in a spreadsheet
    (`tracker.spreadsheets`: no cell runs as a formula, a byte-order mark first)."""
    mixed = leaderboard.currencies if len(leaderboard.currencies) > 1 else []
    rows = []
    for row in leaderboard.rows:
        values = [
            "" if value is None else money_text(value) if column == "net" else value
            for column in LEADERBOARD_COLUMNS
            for value in [getattr(row, column)]
        ]
        if mixed:
            values[LEADERBOARD_COLUMNS.index("net")] = ""
        rows.append(
            [
                *values,
                *(
                    money_text(row.net_by_currency[code]) if code in row.net_by_currency else ""
                    for code in mixed
                ),
            ]
        )
    return csv_text([*LEADERBOARD_COLUMNS, *(f"net {code}" for code in mixed)], rows)
