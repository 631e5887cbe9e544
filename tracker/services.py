"""Every write SquareScores makes: one function per action, each one transaction.

A service locks what it changes, asks `scoring` whether the change is allowed and what it
comes to, and stores the answer. Refusals raise a `ServiceError` carrying the HTTP status
and a sentence for the person; nothing is written when one is raised.

Locking: a tap locks its deal row only. Undo, End match and corrections first lock the
session row, so they never interleave with each other, then the deals they touch.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Case, F, IntegerField, Value, When, prefetch_related_objects
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

import scoring
import scoring.standing
from scoring.text import Text
from tracker.models import (
    Circle,
    Correction,
    Deal,
    DealEvent,
    DealPlayer,
    LedgerLine,
    Player,
    Seat,
    Session,
    ShareLink,
    StandingTally,
    Tap,
)


class ServiceError(Exception):
    """A refused action: `status` is the HTTP status, `message` a sentence for people.

    The sentence is kept as a `Text` (a template marked with `gettext_noop` and its values)
    and said in the language active when `message` is read, so the API and the pages give
    it in the reader's language.
    """

    status = 400

    def __init__(self, template: str | Text, **values: object) -> None:
        self.text = template if isinstance(template, Text) else Text(template, values)
        super().__init__(self.text.render())

    @property
    def message(self) -> str:
        return self.text.render(gettext)


class Invalid(ServiceError):
    status = 400


class Forbidden(ServiceError):
    status = 403


class NotFound(ServiceError):
    status = 404


class Conflict(ServiceError):
    status = 409


ALREADY_A_PLAYER = gettext_noop("%(name)s is already a player in %(circle)s.")
NO_DEAL = gettext_noop("There is no deal %(id)s.")


@dataclass(frozen=True)
class DealWrite:
    """What a tap or an event just left on its deal, as the write knows it: enough to
    show the deal without reading it back (kept on `Deal.written`)."""

    deal_players: list[DealPlayer]  # seat order, players loaded, places and points set
    records: list[Tap | DealEvent]  # the live taps and events, in recorded order
    result: scoring.DealResult
    next_deal: int | None


@dataclass(frozen=True)
class Actor:
    """Who is writing: an account, or a scorer link passed round the table."""

    # The project's user model (no AUTH_USER_MODEL override): what the rows' user
    # foreign keys hold.
    user: User | None = None
    link: ShareLink | None = None

    @property
    def record_fields(self) -> dict[str, Any]:
        return {"recorded_by": self.user, "recorded_via": self.link}


def _refuse(error: scoring.ScoringError) -> ServiceError:
    return Conflict(error.text) if error.conflict else Invalid(error.text)


# --- Circles and players --------------------------------------------------------------


_NAME_MISSING = {
    "circle": gettext_noop("The circle needs a name."),
    "player": gettext_noop("The player needs a name."),
    "session": gettext_noop("The session needs a name."),
}
_NAME_TOO_LONG = {
    "circle": gettext_noop("The circle's name can be at most %(longest)s characters."),
    "player": gettext_noop("The player's name can be at most %(longest)s characters."),
    "session": gettext_noop("The session's name can be at most %(longest)s characters."),
}


def _clean_name(name: str, *, what: str, longest: int) -> str:
    name = " ".join(str(name).split())
    if not name:
        raise Invalid(_NAME_MISSING[what])
    if len(name) > longest:
        raise Invalid(_NAME_TOO_LONG[what], longest=longest)
    return name


@transaction.atomic
def circle_create(*, owner: User, name: str) -> Circle:
    circle = Circle.objects.create(owner=owner, name=_clean_name(name, what="circle", longest=80))
    circle.members.add(owner)
    return circle


@transaction.atomic
def player_create(*, circle: Circle, name: str) -> Player:
    name = _clean_name(name, what="player", longest=40)
    if circle.players.filter(name__iexact=name).exists():
        raise Conflict(ALREADY_A_PLAYER, name=name, circle=circle.name)
    return Player.objects.create(circle=circle, name=name)


@transaction.atomic
def player_rename(*, player: Player, name: str) -> Player:
    name = _clean_name(name, what="player", longest=40)
    if player.circle.players.filter(name__iexact=name).exclude(pk=player.pk).exists():
        raise Conflict(ALREADY_A_PLAYER, name=name, circle=player.circle.name)
    player.name = name
    player.save(update_fields=["name"])
    return player


# --- Sessions -------------------------------------------------------------------------


def _resolve_players(circle: Circle, players: Sequence[int | str]) -> list[Player]:
    """Players by id (of this circle) or by name (found, or added to the circle)."""
    by_name = {player.name.lower(): player for player in circle.players.all()}
    by_id = {player.pk: player for player in by_name.values()}
    seated: list[Player] = []
    for entry in players:
        if isinstance(entry, int):
            if entry not in by_id:
                raise Invalid(
                    gettext_noop("There is no player %(id)s in %(circle)s."),
                    id=entry,
                    circle=circle.name,
                )
            player = by_id[entry]
        else:
            name = _clean_name(entry, what="player", longest=40)
            player = by_name.get(name.lower()) or Player.objects.create(circle=circle, name=name)
            by_name[name.lower()] = player
        if player in seated:
            raise Invalid(gettext_noop("%(name)s is seated twice."), name=player.name)
        seated.append(player)
    return seated


def _clean_currency(currency: str) -> str:
    currency = str(currency).strip().upper()
    if len(currency) != 3 or not currency.isascii() or not currency.isalpha():
        raise Invalid(gettext_noop("The currency is a 3-letter code such as USD, EUR or VND."))
    return currency


def _clean_stake(stake: Decimal | str | int) -> Decimal:
    if isinstance(stake, float):
        raise Invalid(
            gettext_noop('The stake is sent as a decimal string such as "1.00", not a float.')
        )
    try:
        value = Decimal(str(stake).strip())
    except InvalidOperation:
        raise Invalid(gettext_noop("The stake must be a number such as 1.00.")) from None
    try:
        scoring.check_stake(value)
    except scoring.ScoringError as error:
        raise _refuse(error) from None
    return value


@transaction.atomic
def session_create(
    *,
    circle: Circle,
    name: str,
    players: Sequence[int | str],
    format: str = scoring.Format.PODIUM,
    stake_rule: str = scoring.StakeRule.LOSER_PAYS,
    stake: Decimal | str = Decimal("1.00"),
    currency: str = "USD",
    hand_size: int = 13,
    options: scoring.Options | None = None,
    actor: Actor,
) -> Session:
    """Seat the players in order, check the rule set, and open the first deal."""
    try:
        rules = scoring.Rules(
            format=scoring.Format(format),
            stake_rule=scoring.StakeRule(stake_rule),
            stake=_clean_stake(stake),
            options=options or scoring.Options(),
            hand_size=hand_size,
        )
    except ValueError as error:
        if isinstance(error, ServiceError):
            raise
        raise Invalid(gettext_noop("Unknown format or stake rule.")) from None
    currency = _clean_currency(currency)
    seated = _resolve_players(circle, players)
    try:
        scoring.check_rules(rules, len(seated))
    except scoring.ScoringError as error:
        raise _refuse(error) from None
    session = Session.objects.create(
        circle=circle,
        name=_clean_name(name, what="session", longest=80),
        format=rules.format.value,
        stake_rule=rules.stake_rule.value,
        stake=rules.stake,
        currency=currency,
        hand_size=rules.hand_size,
        created_by=actor.user,
        **{field: getattr(rules.options, field) for field in _OPTION_FIELDS},
    )
    Seat.objects.bulk_create(
        Seat(session=session, player=player, position=position)
        for position, player in enumerate(seated, start=1)
    )
    StandingTally.objects.bulk_create(StandingTally(session=session, player=p) for p in seated)
    _open_deal(session=session, number=1, players=seated, opening=scoring.Opening(None, None))
    return session


_OPTION_FIELDS = ("guaransheed", "got_to_get_in", "instant_wins", "trading", "penalties")


def _open_deal(
    *, session: Session, number: int, players: Sequence[Player], opening: scoring.Opening
) -> Deal:
    deal = Deal.objects.create(
        session=session,
        number=number,
        dealer_id=opening.dealer,
        leader_id=opening.leader,
        trading=[
            {
                "giver": reminder.giver,
                "receiver": reminder.receiver,
                "cards": reminder.cards,
                "returns": reminder.returns,
            }
            for reminder in opening.trading
        ],
    )
    DealPlayer.objects.bulk_create(
        DealPlayer(deal=deal, player=player, seat=position)
        for position, player in enumerate(players, start=1)
    )
    return deal


@transaction.atomic
def session_seat(*, session_id: int, players: Sequence[int | str], actor: Actor) -> Session:
    """Change who sits at the table between deals (SPEC 3.5).

    Allowed while the open deal has nothing recorded; that deal is re-seated, and its
    leader becomes "lowest card leads" if the table changed.
    """
    session = _locked_session(session_id)
    deal = _open_deal_of(session)
    if deal.last_seq and _live_records(deal):
        raise Conflict(
            gettext_noop("Players can change only between deals: finish or undo this deal first.")
        )
    seated = _resolve_players(session.circle, players)
    previous = list(deal.deal_players.order_by("seat").values_list("player_id", flat=True))
    try:
        scoring.check_rules(session.rules, len(seated))
    except scoring.ScoringError as error:
        raise _refuse(error) from None
    session.seats.all().delete()  # the seating plan, not history: deals keep who played
    Seat.objects.bulk_create(
        Seat(session=session, player=player, position=position)
        for position, player in enumerate(seated, start=1)
    )
    StandingTally.objects.bulk_create(
        (StandingTally(session=session, player=player) for player in seated),
        ignore_conflicts=True,  # players who sat before keep their totals
    )
    deal.deal_players.all().delete()
    DealPlayer.objects.bulk_create(
        DealPlayer(deal=deal, player=player, seat=position)
        for position, player in enumerate(seated, start=1)
    )
    if [player.pk for player in seated] != previous:
        if set(previous) != {player.pk for player in seated}:
            deal.leader = None
        if deal.dealer_id not in {player.pk for player in seated}:
            deal.dealer = None
        deal.save(update_fields=["leader", "dealer"])
    return session


# --- Reading a deal's facts -----------------------------------------------------------


def _locked_session(session_id: int) -> Session:
    # NO KEY UPDATE, and the session row only: a tap that files (holding its deal row)
    # inserts ledger lines and the next deal, whose foreign keys take KEY SHARE on this
    # row. A plain FOR UPDATE here (undo, End match) waiting for that deal would deadlock.
    try:
        return (
            Session.objects.select_for_update(of=("self",), no_key=True)
            .select_related("circle")
            .get(pk=session_id)
        )
    except Session.DoesNotExist:
        raise NotFound(gettext_noop("There is no session %(id)s."), id=session_id) from None


def _locked_deal(deal_id: int) -> Deal:
    """The deal row, locked until the transaction ends (the session row is not locked)."""
    try:
        return (
            Deal.objects.select_for_update(of=("self",)).select_related("session").get(pk=deal_id)
        )
    except Deal.DoesNotExist:
        raise NotFound(NO_DEAL, id=deal_id) from None


def _lock_session_of_deal(deal_id: int) -> Session:
    session_id = Deal.objects.filter(pk=deal_id).values_list("session_id", flat=True).first()
    if session_id is None:
        raise NotFound(NO_DEAL, id=deal_id)
    return _locked_session(session_id)


def _open_deal_of(session: Session) -> Deal:
    deal = session.deals.select_for_update().filter(status=Deal.Status.OPEN).first()
    if deal is None:
        raise Conflict(gettext_noop("This session has ended."))
    return deal


def _live_records(deal: Deal) -> list[Tap | DealEvent]:
    """The deal's taps and events that stand, in the order they were recorded."""
    taps = list(deal.taps.filter(undone_at__isnull=True).prefetch_related("not_played"))
    events = list(deal.dealevents.filter(undone_at__isnull=True))
    return sorted([*taps, *events], key=lambda record: record.seq)


def _to_record(row: Tap | DealEvent) -> scoring.Record:
    if isinstance(row, Tap):
        return scoring.Tap(
            player=row.player_id,
            not_played=tuple(sorted(player.pk for player in row.not_played.all())),
            loser=row.loser,
        )
    return row.to_record()


def deal_facts(
    deal: Deal,
    rows: Iterable[Tap | DealEvent] | None = None,
    deal_players: Sequence[DealPlayer] | None = None,
) -> scoring.DealFacts:
    """The scoring facts of a stored deal. `deal_players`, when the caller has them, are
    the deal's players in seat order with `player` loaded."""
    session = deal.session
    if deal_players is None:
        deal_players = list(deal.deal_players.select_related("player").order_by("seat"))
    if rows is None:
        rows = _live_records(deal)
    return scoring.DealFacts(
        players=tuple(dp.player_id for dp in deal_players),
        rules=session.rules,
        records=tuple(_to_record(row) for row in rows),
        ended=deal.status == Deal.Status.ENDED,
        names={dp.player_id: dp.player.name for dp in deal_players},
    )


# --- Storing what scoring derived -----------------------------------------------------


def _facts_and_result(
    deal: Deal, rows: Iterable[Tap | DealEvent]
) -> tuple[scoring.DealFacts, scoring.DealResult]:
    facts = deal_facts(deal, rows)
    return facts, scoring.play(facts)


def _store_result(
    deal: Deal,
    facts: scoring.DealFacts,
    result: scoring.DealResult,
    *,
    before: tuple[scoring.DealFacts, scoring.DealResult] | None,
) -> Deal | None:
    """Write places, points, status and (for a closed deal) the ledger, and move the
    session's running totals by what the deal now adds, less what it added `before`.
    Returns the next deal when this filing opened it."""
    change = scoring.standing.change(before, (facts, result))
    if change:
        _add_to_tallies(deal.session_id, change)
    was_open = deal.is_open
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

    deal.status = result.status.value
    deal.winner_id = result.winner
    deal.loser_id = result.loser
    if result.closed and deal.closed_at is None:
        deal.closed_at = timezone.now()
    if not result.closed:
        deal.closed_at = None
    deal.save(update_fields=["status", "winner", "loser", "closed_at", "last_seq"])

    if result.closed:
        LedgerLine.objects.bulk_create(
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
        )
    if was_open and result.status is scoring.DealStatus.FILED:
        return _open_next_deal(deal, facts, result)
    return None


def _add_to_tallies(session_id: int, change: dict[int, scoring.standing.Tally]) -> None:
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
    or to repair): the same sums the standings would make over every deal."""
    from tracker.selectors import standings_by_aggregate  # selectors import services

    StandingTally.objects.filter(session=session).delete()  # derived; rebuilt here
    StandingTally.objects.bulk_create(
        StandingTally(
            session=session,
            player_id=row.player,
            net=row.net,
            **{name: getattr(row, name) for name in StandingTally.TOTALS if name != "net"},
        )
        for row in standings_by_aggregate(session)
    )


def _open_next_deal(deal: Deal, facts: scoring.DealFacts, result: scoring.DealResult) -> Deal:
    session = deal.session
    seated = [seat.player for seat in session.seats.select_related("player").order_by("position")]
    opening = scoring.opening(
        rules=session.rules,
        players=[player.pk for player in seated],
        previous_players=list(facts.players),  # the filed deal's, in seat order
        previous=result,
    )
    return _open_deal(session=session, number=deal.number + 1, players=seated, opening=opening)


def _next_seq(deal: Deal) -> int:
    deal.last_seq += 1
    return deal.last_seq


def _save_records(
    deal: Deal, records: Iterable[scoring.Record], result: scoring.DealResult, actor: Actor
) -> list[Tap | DealEvent]:
    """Store new taps and events; a tap's place is the one scoring gave it."""
    saved: list[Tap | DealEvent] = []
    for record in records:
        seq = _next_seq(deal)
        if isinstance(record, scoring.Tap):
            tap = Tap.objects.create(
                deal=deal,
                seq=seq,
                player_id=record.player,
                place=result.places[record.player],
                loser=record.loser,
                **actor.record_fields,
            )
            if record.not_played:
                tap.not_played.set(record.not_played)
            saved.append(tap)
        else:
            saved.append(
                DealEvent.objects.create(
                    deal=deal, seq=seq, **DealEvent.fields_for(record), **actor.record_fields
                )
            )
    return saved


# --- Recording on a deal --------------------------------------------------------------


def _record(*, deal_id: int, record: scoring.Record, actor: Actor) -> Deal:
    deal = _locked_deal(deal_id)
    if deal.status == Deal.Status.ENDED:
        raise Conflict(gettext_noop("This deal was ended with End match."))
    if deal.status == Deal.Status.FILED:
        raise Conflict(gettext_noop("This deal is already filed; correct it instead."))
    deal_players = list(deal.deal_players.select_related("player").order_by("seat"))
    rows = _live_records(deal)
    try:
        facts, result = scoring.add_record(deal_facts(deal, rows, deal_players), record)
    except scoring.ScoringError as error:
        raise _refuse(error) from None
    try:
        with transaction.atomic():
            saved = _save_records(deal, [record], result, actor)
            following = _store_result(deal, facts, result, before=None)  # counts nowhere yet
    except IntegrityError:
        # The constraints are the last line; the row lock makes this unreachable in
        # practice, but a race must never become a 500 or a double filing.
        raise Conflict(
            gettext_noop("Someone else just recorded on this deal; look again and retry.")
        ) from None
    prefetch_related_objects([row for row in saved if isinstance(row, Tap)], "not_played")
    for deal_player in deal_players:  # as _store_result just wrote them
        deal_player.place = result.places.get(deal_player.player_id)
        deal_player.points = result.points.get(deal_player.player_id, 0)
    deal.written = DealWrite(
        deal_players=deal_players,
        records=[*rows, *saved],
        result=result,
        next_deal=following.pk if following is not None else None,
    )
    return deal


@transaction.atomic
def deal_tap(
    *,
    deal_id: int,
    player_id: int,
    not_played: Sequence[int] = (),
    loser: bool = False,
    actor: Actor,
) -> Deal:
    """A player went out (or, with `loser`, is the one left holding cards)."""
    # Sorted as a stored tap replays them, so the answer and every later read agree.
    record = scoring.Tap(player=player_id, not_played=tuple(sorted(not_played)), loser=loser)
    return _record(deal_id=deal_id, record=record, actor=actor)


@transaction.atomic
def deal_event_record(*, deal_id: int, event: scoring.Record, actor: Actor) -> Deal:
    """Record something that costs money: a 2 beaten, a hand, a Guaransheed..."""
    if isinstance(event, scoring.Tap):
        raise Invalid(gettext_noop("Taps are recorded with deal_tap."))
    deal = Deal.objects.filter(pk=deal_id).only("status").first()
    if deal is not None and deal.status == Deal.Status.FILED and isinstance(event, scoring.Hand):
        return deal_correct(
            deal_id=deal_id, add_events=[event], reason="Hand recorded after filing", actor=actor
        )
    return _record(deal_id=deal_id, record=event, actor=actor)


@transaction.atomic
def deal_undo(*, deal_id: int, actor: Actor) -> Deal:
    """Take back the last tap or event (SPEC 3.4), keeping it as history.

    Undoing the record that filed a deal re-opens it and removes the empty next deal;
    undo sent to that empty next deal reaches back the same way.
    """
    session = _lock_session_of_deal(deal_id)
    deal = _locked_deal(deal_id)
    if deal.status == Deal.Status.ENDED:
        raise Conflict(gettext_noop("This deal was ended with End match; correct it instead."))
    if session.ended_at is not None:
        # A correction can file the deal End match closed; undo must not re-open it.
        raise Conflict(gettext_noop("This session has ended; correct the deal instead."))
    rows = _live_records(deal)
    if deal.is_open and not rows:
        previous = (
            Deal.objects.select_for_update(of=("self",))
            .select_related("session")
            .filter(session_id=deal.session_id, number=deal.number - 1)
            .first()
        )
        if previous is None or previous.status != Deal.Status.FILED:
            raise Invalid(gettext_noop("Nothing to undo on this deal."))
        deal, rows = previous, _live_records(previous)
    last = rows[-1]
    before = _facts_and_result(deal, rows) if not deal.is_open else None
    facts, result = _facts_and_result(deal, rows[:-1])
    if deal.status == Deal.Status.FILED and not result.closed:
        _withdraw_next_deal(deal)
    last.undone_at, last.undone_by, last.undone_via = timezone.now(), actor.user, actor.link
    last.save(update_fields=["undone_at", "undone_by", "undone_via"])
    _store_result(deal, facts, result, before=before)
    return deal


def _withdraw_next_deal(deal: Deal) -> None:
    """Remove the deal that opened by itself when `deal` filed, if nothing is on it."""
    following = (
        Deal.objects.select_for_update()
        .filter(session_id=deal.session_id, number=deal.number + 1)
        .first()
    )
    if following is None:
        return
    if not following.is_open or _live_records(following):
        raise Conflict(
            gettext_noop(
                "Deal %(following)s has started; undo there first, or correct deal %(number)s."
            ),
            following=following.number,
            number=deal.number,
        )
    # It holds nothing but its seating, so removing it loses no history.
    following.delete()


@transaction.atomic
def deal_end(*, deal_id: int, actor: Actor) -> Deal:
    """End match: close the open deal with what it has, and end the session (SPEC 3.3)."""
    session = _lock_session_of_deal(deal_id)
    deal = _locked_deal(deal_id)
    if not deal.is_open:
        raise Conflict(
            gettext_noop("This deal is already filed; End match closes the open deal.")
            if deal.status == Deal.Status.FILED
            else gettext_noop("This deal was already ended with End match.")
        )
    try:
        facts, result = scoring.end_match(deal_facts(deal))
    except scoring.ScoringError as error:
        raise _refuse(error) from None
    _store_result(deal, facts, result, before=None)
    session.ended_at = timezone.now()
    session.save(update_fields=["ended_at"])
    return deal


@transaction.atomic
def session_end(*, session_id: int, actor: Actor) -> Session:
    """End the session: End match on its open deal."""
    session = _locked_session(session_id)
    deal = session.deals.filter(status=Deal.Status.OPEN).first()
    if deal is None:
        raise Conflict(gettext_noop("This session has already ended."))
    deal_end(deal_id=deal.pk, actor=actor)
    session.refresh_from_db()
    return session


# --- Corrections ----------------------------------------------------------------------


def _snapshot(deal: Deal, facts: scoring.DealFacts, result: scoring.DealResult) -> dict[str, Any]:
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


@transaction.atomic
def deal_correct(
    *,
    deal_id: int,
    taps: Sequence[int] | None = None,
    loser: int | None = None,
    add_events: Sequence[scoring.Record] = (),
    remove_event_ids: Sequence[int] = (),
    reason: str = "",
    actor: Actor,
) -> Deal:
    """Correct a filed or ended deal: new tap order and/or events added or removed.

    The deal's points and ledger are recomputed; the old records are kept as history
    (marked undone by this correction) and a Correction stores before and after.
    """
    _lock_session_of_deal(deal_id)
    deal = _locked_deal(deal_id)
    if deal.is_open:
        raise Conflict(
            gettext_noop("This deal is still open: use undo, or record what is missing.")
        )
    rows = _live_records(deal)
    facts = deal_facts(deal, rows)
    before = scoring.play(facts)

    events = [row for row in rows if isinstance(row, DealEvent)]
    unknown = set(remove_event_ids) - {event.pk for event in events}
    if unknown:
        raise NotFound(gettext_noop("There is no event %(id)s on this deal."), id=min(unknown))
    kept_events = [event for event in events if event.pk not in set(remove_event_ids)]
    old_taps = [row for row in rows if isinstance(row, Tap)]
    not_played = {tap.player_id: tuple(p.pk for p in tap.not_played.all()) for tap in old_taps}

    if taps is None:
        new_taps = [_to_record(tap) for tap in old_taps]
    else:
        order = list(taps)
        if len(set(order)) != len(order):
            raise Invalid(gettext_noop("A player appears twice in the tap order."))
        if loser is not None and loser in order and order[-1] != loser:
            raise Invalid(gettext_noop("The loser is the last player in the tap order."))
        new_taps = [
            scoring.Tap(player=player, not_played=not_played.get(player, ())) for player in order
        ]
        if loser is not None and loser not in order:
            new_taps.append(scoring.Tap(player=loser, loser=True))

    events_after = [event.to_record() for event in kept_events] + list(add_events)
    if any(isinstance(record, scoring.InstantWin) for record in events_after):
        new_taps = []  # an instant win places nobody else
    # A stable sort by phase keeps the recorded order within each phase.
    records = sorted([*events_after, *new_taps], key=_correction_phase)
    corrected = replace(facts, records=tuple(records))
    try:
        after = scoring.play(corrected)
    except scoring.ScoringError as error:
        raise Invalid(
            gettext_noop("That correction does not add up: %(reason)s"), reason=error.text
        ) from None
    if deal.status == Deal.Status.FILED and not after.closed:
        raise Invalid(
            gettext_noop("That correction leaves the deal unfinished: %(reason)s"),
            reason=after.why,
        )

    correction = Correction.objects.create(
        deal=deal,
        reason=str(reason)[:200],
        before=_snapshot(deal, facts, before),
        after=_snapshot(deal, corrected, after),
        made_by=actor.user,
        made_via=actor.link,
    )
    now = timezone.now()
    for row in rows:
        row.undone_at, row.undone_by, row.undone_via = now, actor.user, actor.link
        row.correction = correction
        row.save(update_fields=["undone_at", "undone_by", "undone_via", "correction"])
    _save_records(deal, records, after, actor)
    _store_result(deal, corrected, after, before=(facts, before))
    _refresh_next_opening(deal, corrected, after)
    return deal


def _correction_phase(record: scoring.Record) -> int:
    """Where a record goes when a deal is replayed for a correction: declarations and
    claims first, then what happened in play (2s and cutups beaten are only recorded while
    the deal is open, so before the tap that filed it), then taps, then hands (which may
    follow the filing)."""
    if isinstance(record, scoring.Guaransheed | scoring.InstantWin):
        return 0
    if isinstance(record, scoring.TwoBeaten | scoring.CutupBeaten):
        return 1
    if isinstance(record, scoring.Tap):
        return 2
    return 3


def _refresh_next_opening(deal: Deal, facts: scoring.DealFacts, result: scoring.DealResult) -> None:
    """A correction changes who deals and leads next, while that deal is untouched."""
    following = Deal.objects.filter(session_id=deal.session_id, number=deal.number + 1).first()
    if following is None or not following.is_open or _live_records(following):
        return
    players = list(following.deal_players.order_by("seat").values_list("player_id", flat=True))
    opening = scoring.opening(
        rules=deal.session.rules,
        players=players,
        previous_players=list(facts.players),  # the corrected deal's, in seat order
        previous=result,
    )
    following.dealer_id, following.leader_id = opening.dealer, opening.leader
    following.save(update_fields=["dealer", "leader"])


@transaction.atomic
def deal_event_remove(*, deal_id: int, event_id: int, actor: Actor) -> Deal:
    """Remove a mistaken event: on an open deal it is undone as recorded; on a filed deal
    it is a correction."""
    _lock_session_of_deal(deal_id)  # session first, then the deal, as undo and corrections do
    deal = _locked_deal(deal_id)
    event = deal.dealevents.filter(pk=event_id).first()
    if event is None:
        raise NotFound(
            gettext_noop("There is no event %(id)s on deal %(number)s."),
            id=event_id,
            number=deal.number,
        )
    if event.undone_at is not None:
        raise Conflict(gettext_noop("That event was already taken back."))
    if not deal.is_open:
        return deal_correct(
            deal_id=deal_id, remove_event_ids=[event_id], reason="Event removed", actor=actor
        )
    rows = [
        row
        for row in _live_records(deal)
        if not (isinstance(row, DealEvent) and row.pk == event_id)
    ]
    try:
        facts, result = _facts_and_result(deal, rows)
    except scoring.ScoringError as error:
        raise Invalid(
            gettext_noop("Removing that event leaves the deal inconsistent: %(reason)s"),
            reason=error.text,
        ) from None
    event.undone_at, event.undone_by, event.undone_via = timezone.now(), actor.user, actor.link
    event.save(update_fields=["undone_at", "undone_by", "undone_via"])
    _store_result(deal, facts, result, before=None)  # an open deal counts nowhere
    return deal


__all__ = [
    "Actor",
    "Conflict",
    "Forbidden",
    "Invalid",
    "NotFound",
    "ServiceError",
    "circle_create",
    "deal_correct",
    "deal_end",
    "deal_event_record",
    "deal_event_remove",
    "deal_facts",
    "deal_tap",
    "deal_undo",
    "player_create",
    "player_rename",
    "session_create",
    "session_end",
    "session_seat",
]


# --- API support (issue 3): circles, share links, settlement payments --------------------


@transaction.atomic
def circle_rename(*, circle: Circle, name: str) -> Circle:
    circle.name = _clean_name(name, what="circle", longest=80)
    circle.save(update_fields=["name"])
    return circle


@transaction.atomic
def share_link_create(*, session_id: int, role: str, actor: Actor) -> ShareLink:
    """A new link for the session (SPEC 7). A session has one scorer and one viewer link
    at a time: a new link revokes the active link of its role."""
    import secrets

    if role not in ShareLink.Role.values:
        raise Invalid(gettext_noop('A share link is for a "scorer" or a "viewer".'))
    session = _locked_session(session_id)
    session.share_links.filter(role=role, revoked_at__isnull=True).update(revoked_at=timezone.now())
    return ShareLink.objects.create(
        session=session, role=role, token=secrets.token_urlsafe(32), created_by=actor.user
    )


@transaction.atomic
def share_link_revoke(*, link_id: int, actor: Actor) -> ShareLink:
    """Stop a link working; the row stays, with when it was revoked."""
    link = ShareLink.objects.select_for_update().filter(pk=link_id).first()
    if link is None:
        raise NotFound(gettext_noop("There is no share link %(id)s."), id=link_id)
    if link.revoked_at is not None:
        raise Conflict(gettext_noop("This share link is already revoked."))
    link.revoked_at = timezone.now()
    link.save(update_fields=["revoked_at"])
    return link


def _transfer_words(payer_id: int, payee_id: int, amount: Decimal) -> Text:
    names = dict(Player.objects.filter(pk__in=[payer_id, payee_id]).values_list("pk", "name"))
    return Text(
        gettext_noop("%(payer)s to %(payee)s of %(amount)s"),
        {
            "payer": names.get(payer_id) or Text(gettext_noop("player %(id)s"), {"id": payer_id}),
            "payee": names.get(payee_id) or Text(gettext_noop("player %(id)s"), {"id": payee_id}),
            # Positional only while it stays short: "1e999999999" written out would be
            # a billion digits.
            "amount": f"{amount:f}" if abs(amount.adjusted()) < 20 else str(amount),
        },
    )


@transaction.atomic
def transfer_mark_paid(
    *, session_id: int, payer_id: int, payee_id: int, amount: Decimal, actor: Actor
) -> Any:
    """Mark one of the settlement's transfers paid (SPEC 5). The ledger is not touched,
    so the other open transfers stay as they are."""
    from tracker.selectors import session_settlement  # selectors build on services

    session = _locked_session(session_id)
    for transfer in session_settlement(session).transfers:
        if (transfer.payer, transfer.payee, transfer.amount) == (payer_id, payee_id, amount):
            if transfer.paid:
                raise Conflict(gettext_noop("That transfer is already marked paid."))
            return session.payments.create(
                payer_id=payer_id,
                payee_id=payee_id,
                amount=transfer.amount,
                **actor.record_fields,
            )
    raise Invalid(
        gettext_noop("There is no transfer from %(transfer)s in this session's settlement."),
        transfer=_transfer_words(payer_id, payee_id, amount),
    )


@transaction.atomic
def transfer_mark_unpaid(
    *, session_id: int, payer_id: int, payee_id: int, amount: Decimal, actor: Actor
) -> Any:
    """Take back a payment mark: the Payment row stays, cancelled, as history."""
    session = _locked_session(session_id)
    payments = session.payments.select_for_update().filter(
        payer_id=payer_id, payee_id=payee_id, cancelled_at__isnull=True
    )
    # Amounts compared as Decimals here, not in SQL: SQLite stores decimals loosely.
    payment = next((p for p in payments.order_by("-paid_at", "-id") if p.amount == amount), None)
    if payment is None:
        raise Conflict(
            gettext_noop("The transfer from %(transfer)s is not marked paid."),
            transfer=_transfer_words(payer_id, payee_id, amount),
        )
    payment.cancelled_at = timezone.now()
    payment.cancelled_by, payment.cancelled_via = actor.user, actor.link
    payment.save(update_fields=["cancelled_at", "cancelled_by", "cancelled_via"])
    return payment


__all__ += [
    "circle_rename",
    "share_link_create",
    "share_link_revoke",
    "transfer_mark_paid",
    "transfer_mark_unpaid",
]
