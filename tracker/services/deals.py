"""Recording on a deal: taps, events, undo, End match, taking an event back.

Each function is one transaction and returns the deal as it now stands (`DealState`).
Each first locks the session row (a tap and an event by moving its version on), which is
what serializes writes to its deals; undo, End match and removals then lock the deal row
too (see `tracker.services.locks`).
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

import scoring
from tracker.access import Actor, DealInReach
from tracker.errors import Conflict, Invalid, NotFound, refused_by_rules
from tracker.gate import write_transaction
from tracker.models import Deal, DealEvent, DealPlayer, Tap
from tracker.records import (
    DealState,
    deal_facts,
    deal_state,
    live_records,
    read_deal_state,
)
from tracker.rows import deal_and_players
from tracker.services.corrections import deal_correct
from tracker.services.locks import (
    lock_session_of_deal,
    locked_deal,
    session_of_deal_changed,
)
from tracker.services.results import (
    deal_before,
    next_opening,
    save_records,
    store_result,
)
from tracker.services.results import reopen as open_again  # `reopen` is undo's flag

ENDED = gettext_noop("This deal was ended with End match.")
FILED = gettext_noop("This deal is already filed; correct it instead.")
RACE = gettext_noop("Someone else just recorded on this deal; look again and retry.")
NOTHING_TO_UNDO = gettext_noop("Nothing to undo on this deal.")
MOVED_ON = gettext_noop(
    "Someone else recorded on deal %(number)s meanwhile: look at who is out now and tap again."
)
UNDO_MOVED_ON = gettext_noop(
    "Someone else changed deal %(number)s meanwhile, so nothing was undone: look at the deal"
    " now and undo again if it still needs it."
)
ALREADY_RECORDED = gettext_noop(
    "Another phone recorded this on deal %(number)s a moment ago; it is not counted twice."
)


def _locked_for_recording(deal: DealInReach) -> tuple[Deal, list[DealPlayer]]:
    """Move the deal's session's version on (which locks the session row, as every write
    to its deals does first, and finds the deal in the caller's reach), then read the
    deal, its session and its players as they now stand: two queries."""
    session_of_deal_changed(deal)
    try:
        return deal_and_players(deal.id)
    except LookupError:
        raise deal.missing from None


def _reached(deal_id: int, reach: DealInReach | None) -> DealInReach:
    if reach is None:
        return DealInReach.by_id(deal_id)
    assert reach.id == deal_id, (reach.id, deal_id)
    return reach


def _record(
    deal: Deal,
    deal_players: list[DealPlayer],
    record: scoring.Record,
    actor: Actor,
    *,
    after: Sequence[int] | None = None,
    seen: int | None = None,
) -> DealState:
    """Record one tap or event on an open deal; the caller holds the session's lock. With
    `after` (a tap's: see `deal_tap`), refused unless those are the deal's taps now; with
    `seen` (an event's: see `deal_event_record`), refused if the same record has been
    recorded since the first `seen` records."""
    if deal.status == Deal.Status.ENDED:
        raise Conflict(ENDED, code="deal_ended")
    if deal.status == Deal.Status.FILED:
        raise Conflict(FILED, code="deal_filed")
    rows = live_records(deal)
    held = deal_facts(deal, rows, deal_players)
    try:
        facts, result = scoring.add_record(held, record)
    except scoring.ScoringError as error:
        raise refused_by_rules(error) from None
    # After the rules: "Dev is already out (1st)" says more than "someone else recorded".
    if after is not None and [row.player_id for row in rows if isinstance(row, Tap)] != list(after):
        raise Conflict(MOVED_ON, code="deal_moved_on", number=deal.number)
    if seen is not None and record in held.records[seen:]:
        raise Conflict(ALREADY_RECORDED, code="already_recorded", number=deal.number)
    try:
        saved = save_records(deal, [record], result, actor)
        # An open deal counts nowhere yet; only the seats this record moves are written.
        following = store_result(deal, facts, result, before=None, seated=deal_players)
    except IntegrityError:
        # The constraints are the last line; the session's lock makes this unreachable in
        # practice, but a race must never become a 500 or a double filing. No savepoint of
        # its own: the refusal rolls this whole function's transaction back.
        raise Conflict(RACE) from None
    for deal_player in deal_players:  # as store_result just wrote them
        deal_player.place = result.places.get(deal_player.player_id)
        deal_player.points = result.points.get(deal_player.player_id, 0)
    return deal_state(
        deal,
        rows=[*rows, *saved],
        deal_players=deal_players,
        facts=facts,
        result=result,
        next_deal=following.pk if following is not None else None,
    )


@write_transaction
def deal_tap(
    *,
    deal_id: int,
    player_id: int,
    not_played: Sequence[int] = (),
    loser: bool = False,
    actor: Actor,
    reach: DealInReach | None = None,
    after: Sequence[int] | None = None,
) -> DealState:
    """A player went out (or, with `loser`, is the one left holding cards). With `reach`,
    the deal is found in the caller's reach (the door's), in the query that locks it.

    `after`, when given, is who was out on the deal as the tapping phone showed it, in
    order: if the deal has moved on since (another phone tapped meanwhile, or a phone's
    taps queued offline arrive after another's), the tap is refused rather than given a
    place the phone never showed (found by a tester: two queued taps shown 1st and 2nd
    were stored 2nd and 3rd, and filed the deal)."""
    # Sorted as a stored tap replays them, so the answer and every later read agree.
    record = scoring.Tap(player=player_id, not_played=tuple(sorted(not_played)), loser=loser)
    deal, deal_players = _locked_for_recording(_reached(deal_id, reach))
    return _record(deal, deal_players, record, actor, after=after)


@write_transaction
def deal_event_record(
    *,
    deal_id: int,
    event: scoring.Record,
    actor: Actor,
    reach: DealInReach | None = None,
    seen: int | None = None,
) -> DealState:
    """Record something that costs money: a 2 beaten, a hand, a Guaransheed... (`reach` as
    for `deal_tap`).

    `seen`, when given, is how many records the deal held as the recording phone showed
    it: the same event recorded since (by another phone, or one phone online while another
    queued it offline) is refused, not counted twice (a tester's "2 chopped" entered on
    two phones charged the owner twice). The same event twice on what one phone showed
    is two events: a player can chop the same 2s owner twice in a deal.

    A hand sent for a deal already filed is a correction that adds it (SPEC 4).
    """
    if isinstance(event, scoring.Tap):
        raise Invalid(gettext_noop("Taps are recorded with deal_tap."))
    deal, deal_players = _locked_for_recording(_reached(deal_id, reach))
    if deal.status == Deal.Status.FILED and isinstance(event, scoring.Hand):
        return deal_correct(
            deal_id=deal_id, add_events=[event], reason="Hand recorded after filing", actor=actor
        )
    return _record(deal, deal_players, event, actor, seen=seen)


REOPEN_FIRST = gettext_noop(
    "Undo would re-open deal %(number)s, which is filed: confirm it to go on."
)


@write_transaction
def deal_undo(
    *,
    deal_id: int,
    actor: Actor,
    reopen: bool = True,
    reach: DealInReach | None = None,
    undoes: tuple[int, int] | None = None,
) -> DealState:
    """Take back the last tap or event (SPEC 3.4), keeping it as history (`reach` as for
    `deal_tap`).

    Undoing the record that filed a deal re-opens it and removes the empty next deal;
    undo sent to that empty next deal reaches back the same way — unless `reopen` is
    False (a page that has not asked yet), which refuses it, as it refuses undo sent to
    the filed deal itself.

    `undoes`, when given, is the record the phone's Undo named, as (deal number, how many
    records that deal held): if the last record is another one now, nothing is undone
    (found by a tester: an undo queued offline while another phone filed the deal took
    back that phone's filing tap, re-opened the deal without asking and removed the next).
    """
    session = lock_session_of_deal(_reached(deal_id, reach))
    deal = locked_deal(deal_id)
    if deal.status == Deal.Status.ENDED:
        raise Conflict(
            gettext_noop("This deal was ended with End match; correct it instead."),
            code="deal_ended",
        )
    if session.ended_at is not None:
        # A correction can file the deal End match closed; undo must not re-open it.
        raise Conflict(
            gettext_noop("This session has ended; correct the deal instead."),
            code="session_ended",
        )
    rows = live_records(deal)
    if deal.is_open and not rows:
        previous = (
            Deal.objects.select_for_update(of=("self",))
            .select_related("session")
            .filter(session_id=deal.session_id, number=deal.number - 1)
            .first()
        )
        if previous is None or previous.status != Deal.Status.FILED:
            raise Invalid(NOTHING_TO_UNDO, code="nothing_to_undo")
        deal, rows = previous, live_records(previous)
    if undoes is not None and (deal.number, len(rows)) != undoes:
        raise Conflict(UNDO_MOVED_ON, code="deal_moved_on", number=undoes[0])
    if deal.status == Deal.Status.FILED and not reopen:
        raise Conflict(REOPEN_FIRST, code="confirm_reopen", number=deal.number)
    last = rows[-1]
    before = _facts_and_result(deal, rows) if not deal.is_open else None
    facts, result = _facts_and_result(deal, rows[:-1])
    if deal.status == Deal.Status.FILED and not result.closed:
        _withdraw_next_deal(deal)
    last.undone_at = timezone.now()
    last.undone_by, last.undone_via = actor.user, actor.link
    last.save(update_fields=["undone_at", "undone_by", "undone_via"])
    store_result(deal, facts, result, before=before)
    if deal.is_open and len(rows) == 1 and deal.number > 1:
        # Empty again: its opening follows the deal before as that deal now stands (a
        # correction made to it while this deal held records left this one as it was).
        seated = list(deal.deal_players.order_by("seat").values_list("player_id", flat=True))
        open_again(deal, next_opening(session, seated, deal_before(deal)))
    return read_deal_state(deal)


def _facts_and_result(
    deal: Deal, rows: Sequence[Tap | DealEvent]
) -> tuple[scoring.DealFacts, scoring.DealResult]:
    facts = deal_facts(deal, rows)
    return facts, scoring.play(facts)


def _withdraw_next_deal(deal: Deal) -> None:
    """Remove the deal that opened by itself when `deal` filed, if nothing is on it. The
    caller holds the session's lock."""
    following = (
        Deal.objects.select_for_update()
        .filter(session_id=deal.session_id, number=deal.number + 1)
        .first()
    )
    if following is None:
        return
    if not following.is_open or live_records(following):
        raise Conflict(
            gettext_noop(
                "Deal %(following)s has started; undo there first, or correct deal %(number)s."
            ),
            code="next_deal_started",
            following=following.number,
            number=deal.number,
        )
    # It holds nothing but its seating, so removing it loses no history.
    following.delete()


@transaction.atomic
def deal_end(*, deal_id: int, actor: Actor) -> DealState:
    """End match: close the open deal with what it has, and end the session (SPEC 3.3),
    naming who ended it."""
    # The standings say "ended" now, even when the deal ended moves no row (End match on
    # the empty deal the last filing opened): a live standings page must hear it (`rows`).
    session = lock_session_of_deal(deal_id, rows=True)
    deal = locked_deal(deal_id)
    if not deal.is_open:
        raise Conflict(
            gettext_noop("This deal is already filed; End match closes the open deal.")
            if deal.status == Deal.Status.FILED
            else gettext_noop("This deal was already ended with End match."),
            code="deal_closed",
        )
    try:
        facts, result = scoring.end_match(deal_facts(deal))
    except scoring.ScoringError as error:
        raise refused_by_rules(error) from None
    store_result(deal, facts, result, before=None)
    session.ended_at = timezone.now()
    session.ended_by, session.ended_via = actor.user, actor.link
    session.save(update_fields=["ended_at", "ended_by", "ended_via"])
    deal.session = session
    return read_deal_state(deal)


@transaction.atomic
def deal_event_remove(*, deal_id: int, event_id: int, actor: Actor) -> DealState:
    """Remove a mistaken event: on an open deal it is undone as recorded; on a filed deal
    it is a correction."""
    lock_session_of_deal(deal_id)  # session first, then the deal, as undo and corrections do
    deal = locked_deal(deal_id)
    event = deal.dealevents.filter(pk=event_id).first()
    if event is None:
        raise NotFound(
            gettext_noop("There is no event %(id)s on deal %(number)s."),
            id=event_id,
            number=deal.number,
        )
    if event.undone_at is not None:
        raise Conflict(gettext_noop("That event was already taken back."), code="event_undone")
    if not deal.is_open:
        return deal_correct(
            deal_id=deal_id, remove_event_ids=[event_id], reason="Event removed", actor=actor
        )
    rows = [
        row for row in live_records(deal) if not (isinstance(row, DealEvent) and row.pk == event_id)
    ]
    try:
        facts, result = _facts_and_result(deal, rows)
    except scoring.ScoringError as error:
        raise Invalid(
            gettext_noop("Removing that event leaves the deal inconsistent: %(reason)s"),
            reason=error.text,
        ) from None
    event.undone_at = timezone.now()
    event.undone_by, event.undone_via = actor.user, actor.link
    event.save(update_fields=["undone_at", "undone_by", "undone_via"])
    store_result(deal, facts, result, before=None)  # an open deal counts nowhere
    return read_deal_state(deal)
