"""A session's running totals (`StandingTally`), kept in step with its deals so standings
read one row a player however long the session (`scoring.standing`)."""

from __future__ import annotations

from django.db import connection, transaction
from django.db.models import Prefetch
from django.utils.translation import gettext_noop

import scoring
import scoring.standing
from tracker.errors import Invalid
from tracker.models import DealEvent, DealPlayer, Session, StandingTally, Tap, counted
from tracker.money import MOST_MONEY
from tracker.records import Row, deal_facts
from tracker.services.locks import sessions_moved_on, standings_moved

_ADD = """
UPDATE {table} SET {sets}
FROM (VALUES {rows}) AS change
WHERE {table}.session_id = %s AND {table}.player_id = change.column1
AND ABS({table}.net + change.column{net}) < {most}
"""

TOO_MUCH_IN_ALL = gettext_noop(
    "That would bring a player's money over this session to more than can be recorded. "
    "Check the deal's events: each cutup beaten doubles the one before."
)


def add_to_tallies(session_id: int, change: dict[int, scoring.standing.Tally]) -> None:
    """Add each player's change to their running totals.

    One statement adds every player's numbers to the stored ones in the database
    (`UPDATE ... FROM (VALUES ...)`, the same SQL on PostgreSQL and SQLite), so concurrent
    filings and corrections in a session add up without reading or locking the rows
    first. (The ORM would take an UPDATE per player, or `bulk_update`, whose CASE per
    field costs more Python than the rest of a filing.) A player with no row yet (their
    first deal counted here) gets one.
    """
    if not change:
        return
    if any(abs(tally.net) >= MOST_MONEY for tally in change.values()):
        raise Invalid(TOO_MUCH_IN_ALL, code="too_much_money")
    table = connection.ops.quote_name(StandingTally._meta.db_table)
    names = StandingTally.TOTALS
    sets = ", ".join(
        f"{name} = {table}.{name} + change.column{index}" for index, name in enumerate(names, 2)
    )
    players = sorted(change)  # one order for every writer: no deadlock between two
    rows = ", ".join(["(" + ", ".join(["%s"] * (len(names) + 1)) + ")"] * len(players))
    values = [
        value
        for player in players
        for value in (player, *(getattr(change[player], name) for name in names))
    ]
    with connection.cursor() as cursor:
        # A net the column cannot hold is not added (PostgreSQL's overflow was a 500, and
        # SQLite stored it, then every standings read was one): the row is left out here,
        # found below, and the filing refused, so its transaction stores nothing.
        sql = _ADD.format(
            table=table, sets=sets, rows=rows, net=names.index("net") + 2, most=f"{MOST_MONEY:f}"
        )
        cursor.execute(sql, [*values, session_id])
        added = cursor.rowcount
    standings_moved(session_id)
    if added == len(players):
        return
    have = set(
        StandingTally.objects.filter(session_id=session_id, player_id__in=players).values_list(
            "player_id", flat=True
        )
    )
    if added < len(have):
        raise Invalid(TOO_MUCH_IN_ALL, code="too_much_money")
    StandingTally.objects.bulk_create(
        StandingTally(
            session_id=session_id,
            player_id=player,
            **{name: getattr(change[player], name) for name in names},
        )
        for player in players
        if player not in have
    )


@transaction.atomic
def session_tallies_rebuild(*, session: Session) -> None:
    """Recompute a session's running totals from its deals (after a bulk load, an import,
    or to repair): each counted deal replayed, and what it adds summed, as the filings
    added it. Players at the table keep a row even with nothing counted yet.

    Queries: the deals, their players, taps, not-played marks and events (five), the
    session's version moved on, then a write a player.
    """
    deals = session.deals.filter(counted()).prefetch_related(
        Prefetch(
            "deal_players", queryset=DealPlayer.objects.select_related("player").order_by("seat")
        ),
        Prefetch(
            "taps",
            queryset=Tap.objects.filter(undone_at__isnull=True).prefetch_related("not_played"),
        ),
        Prefetch("dealevents", queryset=DealEvent.objects.filter(undone_at__isnull=True)),
    )
    totals: dict[int, scoring.standing.Tally] = {
        player_id: scoring.standing.Tally()
        for player_id in session.seats.values_list("player_id", flat=True)
    }
    for deal in deals:
        deal.session = session
        rows: list[Row] = sorted(
            [*deal.taps.all(), *deal.dealevents.all()], key=lambda row: row.seq
        )
        facts = deal_facts(deal, rows, list(deal.deal_players.all()))
        for player, tally in scoring.standing.contribution(facts, scoring.play(facts)).items():
            totals[player] = totals.get(player, scoring.standing.Tally()) + tally
    # The pages and the API keep reads by the session's version (tracker.answers): a
    # repair must move it on, or the workers would go on showing the totals it replaced.
    sessions_moved_on(Session.objects.filter(pk=session.pk))
    StandingTally.objects.filter(session=session).delete()  # derived; rebuilt here
    StandingTally.objects.bulk_create(
        StandingTally(
            session=session,
            player_id=player,
            **{name: getattr(tally, name) for name in StandingTally.TOTALS},
        )
        for player, tally in sorted(totals.items())
    )
