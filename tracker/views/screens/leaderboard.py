"""The circle leaderboard page's state: the quick ranges of days, the table's lines,
head-to-head for one player and the charts, from `selectors.circle_leaderboard` (SPEC 6).
The view only renders it (`tracker.views.leaderboard`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import gettext as _

from tracker import selectors
from tracker.models import Circle
from tracker.templatetags.pages import format_money
from tracker.views import forms
from tracker.views.screens.words import told_apart

CHART_WIDTH, CHART_HEIGHT, CHART_PAD = 320, 160, 6
# The chart colours are CSS classes (`.series-0` ... `.series-7` in static/css/app.css, one
# set a theme); past the eighth player they repeat, dashed.
SERIES_COLOURS = 8


@dataclass
class LeaderboardLine:
    rank: int
    row: selectors.LeaderboardRow
    # Net per currency, when the sessions of the range play for more than one.
    nets: list[tuple[str, Decimal]] = field(default_factory=list)


@dataclass
class ChartLine:
    name: str
    colour: str  # CSS classes
    points: str  # SVG polyline points
    last: str  # the player's total after the last deal, as the legend shows it


@dataclass
class Chart:
    lines: list[ChartLine]
    top: str
    bottom: str
    # y of the zero line, written as SVG reads it: as text here, as the points are, so no
    # language's number format reaches the attribute ("154,0" in Vietnamese drew no line).
    zero: str


@dataclass
class QuickRange:
    label: str
    query: str
    current: bool


@dataclass
class Rivalry:
    opponent: str
    ahead: int
    behind: int


def quick_ranges(form: forms.LeaderboardRangeForm) -> list[QuickRange]:
    today = timezone.localdate()
    chosen = (form.cleaned_data["since"], form.cleaned_data["until"]) if form.is_valid() else None
    ranges = [
        (_("All time"), None, None),
        (_("This month"), today.replace(day=1), today),
        (_("Last 30 days"), today - timedelta(days=29), today),
    ]
    return [
        QuickRange(
            label=label,
            query=urlencode({"since": since.isoformat(), "until": until.isoformat()})
            if since and until
            else "",
            current=chosen == (since, until),
        )
        for label, since, until in ranges
    ]


def chart(
    players: list[selectors.LeaderboardRow],
    order: list[int],
    running: dict[int, dict[int, Any]],
    label: Callable[[Any], str],
) -> Chart | None:
    """One polyline a player over every counted deal of the range, in the order the deals
    closed, starting from 0; a total stays flat through the deals its player sat out.
    `running` is, per player, their total after each deal they played."""
    if not order or not players:
        return None
    totals: dict[int, list[Any]] = {}
    for row in players:
        line: list[Any] = [0]
        for deal in order:
            line.append(running.get(row.player, {}).get(deal, line[-1]))
        totals[row.player] = line
    values = [value for line in totals.values() for value in line]
    top, bottom = max(values), min(values)
    span = (top - bottom) or 1
    step = (CHART_WIDTH - 2 * CHART_PAD) / len(order)
    inner = CHART_HEIGHT - 2 * CHART_PAD

    def y(value: Any) -> float:
        return CHART_PAD + float(top - value) / float(span) * inner

    lines = []
    for index, row in enumerate(players):
        colour = f"series-{index % SERIES_COLOURS}"
        if index >= SERIES_COLOURS:
            colour += " series--dashed"
        lines.append(
            ChartLine(
                name=row.name,
                colour=colour,
                points=" ".join(
                    f"{CHART_PAD + i * step:.1f},{y(value):.1f}"
                    for i, value in enumerate(totals[row.player])
                ),
                last=label(totals[row.player][-1]),
            )
        )
    return Chart(lines=lines, top=label(top), bottom=label(bottom), zero=f"{y(0):.1f}")


def leaderboard_context(
    circle: Circle,
    form: forms.LeaderboardRangeForm,
    board: selectors.Leaderboard,
    chosen_player: str | None,
) -> dict[str, Any]:
    """What the leaderboard templates show; `chosen_player` is the head-to-head pick."""
    order = board.deal_order
    currencies = board.currencies
    # Players with no deal in the range would only be a tail of zeros.
    rows = [row for row in board.rows if row.deals]
    lines = [
        LeaderboardLine(
            rank=rank,
            row=row,
            nets=list(row.net_by_currency.items()) if len(currencies) > 1 else [],
        )
        for rank, row in enumerate(rows, start=1)
    ]

    names = {row.player: row.name for row in rows}
    chosen = next((row.player for row in rows if str(row.player) == chosen_player), None)
    if chosen is None and rows:
        chosen = rows[0].player
    records = {h.opponent: h for h in board.head_to_head if h.player == chosen}
    rivalries = [
        Rivalry(
            opponent=names[row.player],
            ahead=records[row.player].ahead,
            behind=records[row.player].behind,
        )
        for row in rows
        if row.player in records
    ]

    points: dict[int, dict[int, Any]] = {}
    money: dict[int, dict[int, Any]] = {}
    for player, entries in board.series.items():
        points[player] = {deal: total for deal, total, _net in entries}
        money[player] = {deal: net for deal, _total, net in entries}
    currency = currencies[0] if len(currencies) == 1 else ""
    ranges = quick_ranges(form)
    return {
        "circle": circle,
        "form": form,
        "lines": lines,
        "currency": currency,
        "currencies": currencies,
        "deal_count": len(order),
        "quick_ranges": ranges,
        "since": form.cleaned_data["since"] if form.is_valid() else None,
        "until": form.cleaned_data["until"] if form.is_valid() else None,
        # A range of the date fields' own: the fields open, the chips show none current.
        "custom_range": not any(quick.current for quick in ranges),
        "range_query": urlencode(
            {
                name: form.cleaned_data[name].isoformat()
                for name in ("since", "until")
                if form.is_valid() and form.cleaned_data[name]
            }
        ),
        "chosen": chosen,
        "chosen_name": names.get(chosen, "") if chosen else "",
        # The picker's choices as Undo says names: a select shows only the start of its
        # choice, "Nguyễn Thị Minh Kh" for four players alike.
        "picks": list(told_apart(names).items()),
        "rivalries": rivalries,
        "points_chart": chart(rows, order, points, str),
        "money_chart": chart(
            rows,
            order,
            money,
            lambda amount: format_money(Decimal(amount), currency, signed=True),
        )
        if currency
        else None,
    }
