"""Storing what scoring derived for a deal: its records, places and points, status,
ledger, the session's running totals, and the next deal when it files."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import connection
from django.db.models import Case, IntegerField, Value, When, prefetch_related_objects
from django.utils import timezone
from django.utils.translation import gettext_noop

import scoring
import scoring.standing
from tracker.access import Actor
from tracker.errors import Invalid
from tracker.models import Deal, DealEvent, DealPlayer, LedgerLine, Player, Seat, Session, Tap
from tracker.money import MOST_MONEY
from tracker.records import Row, deal_facts, event_fields, unmarked
from tracker.row_writes import insert, insert_all, update
from tracker.rows import all_with
from tracker.services.tallies import add_to_tallies


def open_deal(
    *, session: Session, number: int, players: Sequence[Player], opening: scoring.Opening
) -> Deal:
    """A new open deal with its players in seat order, its dealer, leader and reminders."""
    deal = insert(
        Deal(
            session=session,
            number=number,
            dealer_id=opening.dealer,
            leader_id=opening.leader,
            trading=_reminders(opening),
        )
    )
    insert_all(
        [
            DealPlayer(deal=deal, player=player, seat=position)
            for position, player in enumerate(players, start=1)
        ]
    )
    return deal


Previous = tuple[scoring.DealFacts, scoring.DealResult]


def next_opening(
    session: Session, players: Sequence[int], previous: Previous | None
) -> scoring.Opening:
    """The one way a deal's opening is worked out — dealer, leader, trading reminders — for
    the players now seated (ids, seat order) after the deal before it (its facts and
    result; None for a first deal). Filing, seating and corrections all ask it, so an
    open deal's opening is always what `scoring.opening` gives for the table as it stands.
    """
    if previous is None:
        return scoring.Opening(dealer=None, leader=None)
    facts, result = previous
    return scoring.opening(
        rules=session.rules,
        players=list(players),
        previous_players=list(facts.players),  # the deal before's, in seat order
        previous=result,
    )


def deal_before(deal: Deal) -> Previous | None:
    """The facts and result of the deal before `deal`, replayed; None for a first deal."""
    previous = (
        Deal.objects.select_related("session")
        .filter(session_id=deal.session_id, number=deal.number - 1)
        .first()
    )
    if previous is None:
        return None
    facts = deal_facts(previous)
    return facts, scoring.play(facts)


def reopen(deal: Deal, opening: scoring.Opening) -> None:
    """Store a new opening on the open deal `deal` (nothing recorded on it yet)."""
    deal.dealer_id, deal.leader_id = opening.dealer, opening.leader
    deal.trading = _reminders(opening)
    deal.save(update_fields=["dealer", "leader", "trading"])


def _reminders(opening: scoring.Opening) -> list[dict[str, int]]:
    return [
        {
            "giver": reminder.giver,
            "receiver": reminder.receiver,
            "cards": reminder.cards,
            "returns": reminder.returns,
        }
        for reminder in opening.trading
    ]


def save_records(
    deal: Deal, records: Iterable[scoring.Record], result: scoring.DealResult, actor: Actor
) -> list[Row]:
    """Store new taps and events, each naming who recorded it; a tap's place is the one
    scoring gave it. The caller holds the session's lock and read the deal's records
    (`live_records`, which brings `deal.last_seq` up to the last number given). Each
    row in one statement built once a process (`tracker.row_writes.insert`): the ORM's
    `create` took a tap twice as long to build as to run."""
    saved: list[Row] = []
    for record in records:
        deal.last_seq += 1
        if isinstance(record, scoring.Tap):
            tap = insert(
                Tap(
                    deal=deal,
                    seq=deal.last_seq,
                    player_id=record.player,
                    place=result.places[record.player],
                    loser=record.loser,
                    **actor.fields("recorded"),
                )
            )
            if record.not_played:
                Tap.not_played.through.objects.bulk_create(
                    Tap.not_played.through(tap_id=tap.pk, player_id=player)
                    for player in record.not_played
                )
                prefetch_related_objects([tap], "not_played")
            else:
                unmarked([tap])
            saved.append(tap)
        else:
            event = DealEvent(
                deal=deal, seq=deal.last_seq, **event_fields(record), **actor.fields("recorded")
            )
            saved.append(insert(event))
    return saved


TOO_MUCH_MONEY = gettext_noop(
    "That would make one payment in this deal more money than can be recorded. Check the "
    "deal's events: each cutup beaten doubles the one before."
)


def store_result(
    deal: Deal,
    facts: scoring.DealFacts,
    result: scoring.DealResult,
    *,
    before: tuple[scoring.DealFacts, scoring.DealResult] | None,
    seated: Sequence[DealPlayer] | None = None,
) -> Deal | None:
    """Write places, points, status and (for a closed deal) the ledger, and move the
    session's running totals by what the deal now adds, less what it added `before`.
    Returns the next deal when this filing opened it. The caller holds the deal's lock.

    `seated`: the deal's players as stored, when the caller has read them (a tap or an
    event on an open deal): only the places and points that move are written then."""
    if any(line.amount >= MOST_MONEY for line in result.ledger):
        # Each cutup beaten doubles the one before: sixty of them at a large stake came to
        # more than a money column holds, and PostgreSQL's refusal was a 500.
        raise Invalid(TOO_MUCH_MONEY, code="too_much_money")
    change = scoring.standing.change(before, (facts, result))
    if change:
        add_to_tallies(deal.session_id, change)
    was_open = deal.is_open
    if was_open and seated is not None:
        _seats_moved(seated, result)
    else:
        _seats_written(deal, result, was_open=was_open)

    stood = (deal.status, deal.winner_id, deal.loser_id, deal.closed_at)
    deal.status = result.status.value
    deal.winner_id = result.winner
    deal.loser_id = result.loser
    if result.closed and deal.closed_at is None:
        deal.closed_at = timezone.now()
    if not result.closed:
        deal.closed_at = None
    if (deal.status, deal.winner_id, deal.loser_id, deal.closed_at) != stood:
        # Most taps change none of these (only the first out and the filing one do):
        # the deal row is left as it is then, `last_seq` with it (see `Deal.last_seq`).
        update(deal, ("status", "winner", "loser", "closed_at", "last_seq"))

    if result.closed:
        insert_all(
            [
                LedgerLine(
                    deal=deal,
                    session_id=deal.session_id,
                    position=position,
                    payer_id=line.payer,
                    payee_id=line.payee,
                    amount=line.amount,
                    reason=line.reason.value,
                )
                for position, line in enumerate(result.ledger, start=1)
            ]
        )
    if was_open and result.status is scoring.DealStatus.FILED:
        return _open_next_deal(deal, facts, result)
    return None


def _seats_written(deal: Deal, result: scoring.DealResult, *, was_open: bool) -> None:
    """Write every seat's place and points (and, on a closed deal, clear its ledger)."""
    seating = DealPlayer.objects.filter(deal=deal)
    if not was_open:
        # Undo and corrections can move a place to another player, and the unique
        # (deal, place) constraint holds row by row: clear the places first. On an open
        # deal places are only added, and there is no ledger yet.
        seating.update(place=None)
        LedgerLine.objects.filter(deal=deal).delete()  # derived from the facts; rebuilt
    seating.update(
        place=Case(
            *(When(player_id=player, then=Value(place)) for player, place in result.places.items()),
            default=None,
            output_field=IntegerField(),
        ),
        points=Case(
            *(
                When(player_id=player, then=Value(points))
                for player, points in result.points.items()
            ),
            default=0,
            output_field=IntegerField(),
        ),
    )


_SEATS_MOVED = """
UPDATE {table} SET place = CAST(moved.column2 AS INTEGER), points = moved.column3
FROM (VALUES {rows}) AS moved
WHERE {table}.id = moved.column1
"""


def _seats_moved(seated: Sequence[DealPlayer], result: scoring.DealResult) -> None:
    """Write the places and points of an open deal that this result moves: one statement,
    none when nothing moved (most events). Written by hand, as `add_to_tallies` is: the
    ORM's `CASE` update for every seat took 2 ms of Python a tap to build, four times the
    statement's run (docs/performance.md, session 12). On an open deal places are only
    added, so no row takes a place another row still holds."""
    now = {
        seat.pk: (result.places.get(seat.player_id), result.points.get(seat.player_id, 0))
        for seat in seated
    }
    moved = [
        (seat.pk, *now[seat.pk]) for seat in seated if (seat.place, seat.points) != now[seat.pk]
    ]
    if not moved:
        return
    table = connection.ops.quote_name(DealPlayer._meta.db_table)
    rows = ", ".join(["(%s, %s, %s)"] * len(moved))
    with connection.cursor() as cursor:
        cursor.execute(
            _SEATS_MOVED.format(table=table, rows=rows), [value for row in moved for value in row]
        )


def _open_next_deal(deal: Deal, facts: scoring.DealFacts, result: scoring.DealResult) -> Deal:
    session = deal.session
    seats = all_with(Seat, ("player",), "session", session.pk, order=("position",))
    seated = [seat.player for seat in seats]
    opening = next_opening(session, [player.pk for player in seated], (facts, result))
    return open_deal(session=session, number=deal.number + 1, players=seated, opening=opening)
