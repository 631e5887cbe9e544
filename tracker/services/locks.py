"""The row locks the services take, in one order so two writers never deadlock, and the
session's version every change moves on.

Every write locks its session row first — a tap by moving the session's version on,
everything else with `locked_session` — then the deals it touches. A function below that
expects a lock says so in its docstring.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection
from django.db.models import F, Q, QuerySet
from django.utils.translation import gettext_noop

from tracker.access import DealInReach
from tracker.errors import Conflict, NotFound
from tracker.models import Deal, DealPlayer, Payment, Player, Seat, Session

NO_DEAL = gettext_noop("There is no deal %(id)s.")
NO_SESSION = gettext_noop("There is no session %(id)s.")
SESSION_ENDED = gettext_noop("This session has ended.")


def sessions_moved_on(sessions: QuerySet[Session], *, access: bool = False) -> None:
    """Move on the version of these sessions, and their standings' rows' (a name, a
    repair, an edit in the admin: anything the rows may show); with `access`, who may
    reach them too (`access_moved`). One statement; no lock."""
    counters = {"version": F("version") + 1, "standings_version": F("standings_version") + 1}
    if access:
        counters["access_version"] = F("access_version") + 1
    sessions.update(**counters)


def standings_moved(session_id: int) -> None:
    """What the standings show may have changed, their rows or the session's end, or a
    closed deal's records, or what the settle-up shows (in a write that has moved its
    version on already): a live standings page reads them again, and the answers kept by
    this counter are asked again (`tracker.answers.ROWS`). One statement."""
    # Written by hand: every filing runs it, and the ORM's UPDATE took longer to build.
    table, counter = map(connection.ops.quote_name, (Session._meta.db_table, "standings_version"))
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET {counter} = {counter} + 1 WHERE id = %s", [session_id])


def access_moved(session_id: int) -> None:
    """Who may reach the session may have narrowed (a link revoked or replaced), in a
    write that has moved its version on already: a live page reads its link or membership
    again, and ends if it reaches the session no more. One statement."""
    Session.objects.filter(pk=session_id).update(access_version=F("access_version") + 1)


def locked_session(session_id: int, *, rows: bool = False) -> Session:
    """The session row (with its circle), locked until the transaction ends, its version
    moved on: whatever the caller changes, a watching phone will see. With `rows`, its
    rows' counter too, in the same statement (`standings_moved`: a payment, which the
    settle-up shows)."""
    # NO KEY UPDATE, and the session row only: a tap that files (holding its deal row)
    # inserts ledger lines and the next deal, whose foreign keys take KEY SHARE on this
    # row. A plain FOR UPDATE here (undo, End match) waiting for that deal would deadlock.
    session = (
        Session.objects.select_for_update(of=("self",), no_key=True)
        .select_related("circle")
        .filter(pk=session_id)
        .first()
    )
    if session is None:
        raise NotFound(NO_SESSION, id=session_id)
    counters = {"version": F("version") + 1}
    if rows:
        counters["standings_version"] = F("standings_version") + 1
    Session.objects.filter(pk=session_id).update(**counters)
    return session


def session_of_deal_changed(deal: DealInReach) -> None:
    """Move the version of the deal's session on, taking the session row's lock before the
    deal's (the order undo, End match and corrections take them in): one query, which
    also finds the deal in the caller's reach, or refuses it (`deal.missing`). Written by
    hand, as the reach's part is (`DealInReach.session_of_deal`)."""
    if deal.nowhere:  # a key no deal has, or a caller who reaches none
        raise deal.missing
    reach, params = deal.session_of_deal()
    table, version = map(connection.ops.quote_name, (Session._meta.db_table, "version"))
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} SET {version} = {version} + 1 WHERE id IN ({reach})", params
        )
        moved = cursor.rowcount
    if not moved:
        raise deal.missing


def sessions_of_player_changed(player_id: int) -> None:
    """Move on the version of every session the player shows on (`sessions_of_players`):
    their name or how they are paid shows on its pages, which must learn of the change.
    One query; no lock is taken (nothing else of the sessions changes)."""
    sessions_moved_on(sessions_of_players([player_id]))


def sessions_of_players(players: Iterable[int] | QuerySet[Player]) -> QuerySet[Session]:
    """The sessions the players sit at, played in, or paid or were paid in (a player may
    pay and leave before a deal)."""
    return Session.objects.filter(
        Q(pk__in=Seat.objects.filter(player__in=players).values("session_id"))
        | Q(pk__in=DealPlayer.objects.filter(player__in=players).values("deal__session_id"))
        | Q(
            pk__in=Payment.objects.filter(Q(payer__in=players) | Q(payee__in=players)).values(
                "session_id"
            )
        )
    )


def locked_deal(deal_id: int) -> Deal:
    """The deal row (with its session), locked until the transaction ends; the session
    row is not locked."""
    deal = (
        Deal.objects.select_for_update(of=("self",))
        .select_related("session")
        .filter(pk=deal_id)
        .first()
    )
    if deal is None:
        raise NotFound(NO_DEAL, id=deal_id)
    return deal


def lock_session_of_deal(deal: int | DealInReach, *, rows: bool = False) -> Session:
    """Lock the session of a deal first, as undo, End match and corrections do; a deal
    given in the caller's reach is found there, in the same query. With `rows`, the rows'
    counter moves too (`locked_session`)."""
    reach = deal if isinstance(deal, DealInReach) else DealInReach.by_id(deal)
    session_id = reach.deals.values_list("session_id", flat=True).first()
    if session_id is None:
        raise reach.missing
    return locked_session(session_id, rows=rows)


def open_deal_of(session: Session) -> Deal:
    """The session's open deal, locked; the caller holds the session's lock."""
    deal = session.deals.select_for_update().filter(status=Deal.Status.OPEN).first()
    if deal is None:
        raise Conflict(SESSION_ENDED, code="session_ended")
    return deal
