"""Players: add one to a circle, rename one, and seat the players of a session."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils.translation import gettext_noop

import scoring
from tracker.access import Actor
from tracker.errors import Conflict, Invalid, refused_by_rules
from tracker.models import Circle, Deal, DealPlayer, Player, Seat, Session, StandingTally
from tracker.records import live_records
from tracker.services.circles import clean_name, name_key
from tracker.services.locks import (
    locked_session,
    open_deal_of,
    sessions_of_player_changed,
    standings_moved,
)
from tracker.services.results import deal_before, next_opening, reopen

ALREADY_A_PLAYER = gettext_noop("%(name)s is already a player in %(circle)s.")
# A circle is friends who play together; the bound keeps its pages and leaderboard quick
# however a scorer link is used (seat a new name, drop it, again and again).
MOST_PLAYERS_IN_CIRCLE = 500
CIRCLE_FULL = gettext_noop(
    "%(circle)s already has %(most)s players, the most a circle holds; seat a player it "
    "has, or rename one nobody plays as any more."
)
NOT_IN_CIRCLE = gettext_noop("There is no player %(id)s in %(circle)s.")
SEATED_TWICE = gettext_noop("%(name)s is seated twice.")
BETWEEN_DEALS = gettext_noop(
    "Players can change only between deals: finish or undo this deal first."
)


def _taken(circle: Circle, name: str, *, but: int | None = None) -> Player | None:
    """The circle's player whose name is `name` once both are cleaned and case folded."""
    key = name_key(name)
    for player in circle.players.only("pk", "name", "circle_id"):
        if player.pk != but and name_key(player.name) == key:
            return player
    return None


def _room_for_one_more(circle: Circle) -> None:
    if circle.players.count() >= MOST_PLAYERS_IN_CIRCLE:
        raise Conflict(
            CIRCLE_FULL, code="circle_full", circle=circle.name, most=MOST_PLAYERS_IN_CIRCLE
        )


@transaction.atomic
def player_create(*, circle: Circle, name: str) -> Player:
    name = clean_name(name, what="player")
    if taken := _taken(circle, name):
        raise Conflict(ALREADY_A_PLAYER, name=taken.name, circle=circle.name)
    _room_for_one_more(circle)
    return Player.objects.create(circle=circle, name=name)


@transaction.atomic
def player_rename(*, player: Player, name: str) -> Player:
    name = clean_name(name, what="player")
    if taken := _taken(player.circle, name, but=player.pk):
        raise Conflict(ALREADY_A_PLAYER, name=taken.name, circle=player.circle.name)
    player.name = name
    player.save(update_fields=["name"])
    sessions_of_player_changed(player.pk)
    return player


def resolve_players(circle: Circle, players: Sequence[int | str]) -> list[Player]:
    """Players by id (of this circle) or by name (found, or added to the circle).

    Call inside the transaction that seats them: new names are stored here.
    """
    circle_players = list(circle.players.all())
    by_name = {name_key(player.name): player for player in circle_players}
    by_id = {player.pk: player for player in circle_players}
    seated: list[Player] = []
    for entry in players:
        if isinstance(entry, int):
            if entry not in by_id:
                raise Invalid(NOT_IN_CIRCLE, id=entry, circle=circle.name)
            player = by_id[entry]
        else:
            name = clean_name(entry, what="player")
            found = by_name.get(name_key(name))
            if found is None:
                _room_for_one_more(circle)
                found = Player.objects.create(circle=circle, name=name)
            player = found
            by_name[name_key(name)] = player
        if player in seated:
            raise Invalid(SEATED_TWICE, name=player.name)
        seated.append(player)
    return seated


def seat(session: Session, players: Sequence[Player], actor: Actor) -> None:
    """Store the seating plan, a seat a player in order, naming who sat them."""
    Seat.objects.bulk_create(
        Seat(session=session, player=player, position=position, **actor.fields("seated"))
        for position, player in enumerate(players, start=1)
    )
    StandingTally.objects.bulk_create(
        (StandingTally(session=session, player=player) for player in players),
        ignore_conflicts=True,  # players who sat before keep their totals
    )
    standings_moved(session.pk)  # who is at the table: rows come and go


@transaction.atomic
def players_seat(*, session_id: int, players: Sequence[int | str], actor: Actor) -> Session:
    """Change who sits at the table between deals (SPEC 3.5), all at once: `players` in
    seat order, ids of the circle's players or names (new names join the circle)."""
    session = locked_session(session_id)
    _seat_table(session, open_deal_of(session), players, actor)
    return session


# One change to the seating, as the players page makes them: a player up or down a seat,
# out of the game, a circle player sat down, or a new player by name.
SEAT_CHANGES = ("up", "down", "drop", "add", "name")
LEFT_THE_TABLE = gettext_noop("That player is not at the table any more.")
OTHER_DEAL = gettext_noop("That form was for another deal; look again.")


@transaction.atomic
def players_change(
    *, session_id: int, deal_id: int, change: str, target: int | str, actor: Actor
) -> Session:
    """One change to the seating of deal `deal_id`, applied to the order the table has now
    (so two phones changing seats at once apply one change after the other)."""
    session = locked_session(session_id)
    deal = open_deal_of(session)
    if deal.pk != deal_id:
        raise Conflict(OTHER_DEAL, code="other_deal")
    order = list(deal.deal_players.order_by("seat").values_list("player_id", flat=True))
    _seat_table(session, deal, reseated(order, change, target), actor)
    return session


def reseated(order: Sequence[int], change: str, target: int | str) -> list[int | str]:
    """The seat order after one change (`SEAT_CHANGES`) to `order`."""
    seats: list[int | str] = list(order)
    if change == "name":
        return [*seats, target]
    if change == "add":
        return seats if target in seats else [*seats, target]
    if target not in seats:
        raise Invalid(LEFT_THE_TABLE, code="not_seated")
    index = seats.index(target)
    if change == "drop":
        del seats[index]
    elif change == "up" and index > 0:
        seats[index - 1], seats[index] = seats[index], seats[index - 1]
    elif change == "down" and index < len(seats) - 1:
        seats[index + 1], seats[index] = seats[index], seats[index + 1]
    return seats


def _seat_table(session: Session, deal: Deal, players: Sequence[int | str], actor: Actor) -> None:
    """Seat `players` at the session and its open deal `deal`, while nothing is recorded on
    it; its opening (dealer, leader, trading reminders) is worked out again for the table
    as it now sits. The caller holds the session's lock."""
    if live_records(deal):
        raise Conflict(BETWEEN_DEALS, code="deal_started")
    seated = resolve_players(session.circle, players)
    previous = list(deal.deal_players.order_by("seat").values_list("player_id", flat=True))
    try:
        scoring.check_rules(session.rules, len(seated))
    except scoring.ScoringError as error:
        raise refused_by_rules(error) from None
    session.seats.all().delete()  # the seating plan, not history: deals keep who played
    seat(session, seated, actor)
    deal.deal_players.all().delete()
    DealPlayer.objects.bulk_create(
        DealPlayer(deal=deal, player=player, seat=position)
        for position, player in enumerate(seated, start=1)
    )
    if [player.pk for player in seated] != previous:
        # Who deals and leads, and who owes whom cards, follow the table as it now sits.
        seated_ids = [player.pk for player in seated]
        reopen(deal, next_opening(session, seated_ids, deal_before(deal)))
