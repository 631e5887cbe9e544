"""A session's running totals (`StandingTally`), kept in step with its deals so standings
read one row a player however long the session (`scoring.standing`)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import F, Prefetch

import scoring
import scoring.standing
from tracker.models import DealEvent, DealPlayer, Session, StandingTally, Tap, counted
from tracker.records import Row, deal_facts


def add_to_tallies(session_id: int, change: dict[int, scoring.standing.Tally]) -> None:
    """Add each player's change to their running totals.

    One UPDATE per player adds to the stored numbers in the database (`F(...) + n`), so
    concurrent filings and corrections in a session add up without reading or locking the
    rows first. (`bulk_update` would be one query, but its CASE per field cost more
    Python than the whole rest of a filing.)
    """
    for player in sorted(change):  # one order for every writer: no deadlock between two
        deltas = {name: getattr(change[player], name) for name in StandingTally.TOTALS}
        added = StandingTally.objects.filter(session_id=session_id, player_id=player).update(
            **{name: F(name) + value for name, value in deltas.items() if value}
        )
        if not added:  # the player's first deal counted in this session
            StandingTally.objects.create(session_id=session_id, player_id=player, **deltas)


@transaction.atomic
def session_tallies_rebuild(*, session: Session) -> None:
    """Recompute a session's running totals from its deals (after a bulk load, an import,
    or to repair): each counted deal replayed, and what it adds summed, as the filings
    added it. Players at the table keep a row even with nothing counted yet.

    Queries: the deals, their players, taps, not-played marks and events (five), then a
    write a player.
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
    StandingTally.objects.filter(session=session).delete()  # derived; rebuilt here
    StandingTally.objects.bulk_create(
        StandingTally(
            session=session,
            player_id=player,
            **{name: getattr(tally, name) for name in StandingTally.TOTALS},
        )
        for player, tally in sorted(totals.items())
    )
