"""A circle as one JSON document (docs/backup.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Prefetch, QuerySet

from tracker.backup.common import (
    EVENT_FIELDS,
    FORMAT,
    SESSION_FIELDS,
    SESSION_FORMAT,
    VERSION,
    swap_players,
    when,
)
from tracker.models import (
    Circle,
    Correction,
    Deal,
    DealEvent,
    DealPlayer,
    LedgerLine,
    Payment,
    PaymentDetails,
    Player,
    Seat,
    Session,
    ShareLink,
    Tap,
)

Namer = Callable[[Any], Any]


def _with_history(sessions: QuerySet[Session]) -> QuerySet[Session]:
    """Sessions with every row the export writes, prefetched: a fixed number of queries
    however many deals."""
    return sessions.order_by("pk").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.order_by("position")),
        Prefetch("share_links", queryset=ShareLink.objects.order_by("pk")),
        Prefetch("payments", queryset=Payment.objects.order_by("pk")),
        Prefetch(
            "deals",
            queryset=Deal.objects.order_by("number").prefetch_related(
                Prefetch("deal_players", queryset=DealPlayer.objects.order_by("seat")),
                Prefetch("corrections", queryset=Correction.objects.order_by("pk")),
                Prefetch(
                    "taps",
                    queryset=Tap.objects.order_by("seq").prefetch_related("not_played"),
                ),
                Prefetch("dealevents", queryset=DealEvent.objects.order_by("seq")),
                Prefetch("ledger_lines", queryset=LedgerLine.objects.order_by("position")),
            ),
        ),
    )


def export_circle(circle: Circle, *, with_tokens: bool = False) -> dict[str, Any]:
    """The circle and everything in it, as JSON-ready data (see the module docstring).

    Queries: a fixed number (prefetches per kind of row), however many deals there are.
    """
    users = {user.pk: user.get_username() for user in get_user_model().objects.all()}
    player_names = {player.pk: player.name for player in circle.players.all()}

    def username(user_id: int | None) -> str | None:
        return users[user_id] if user_id is not None else None

    def name(player_id: int | None) -> str | None:
        return player_names[player_id] if player_id is not None else None

    sessions = _with_history(circle.sessions.all())
    return {
        "format": FORMAT,
        "version": VERSION,
        "circle": {
            "name": circle.name,
            "owner": username(circle.owner_id),
            "members": sorted(username(member.pk) for member in circle.members.all()),
            "created_at": when(circle.created_at),
        },
        "players": [
            {
                "name": player.name,
                "created_at": when(player.created_at),
                "user": username(player.user_id),  # "this is me"
            }
            for player in circle.players.order_by("pk")
        ],
        # Invites, like share links: the token only when asked for (it lets people join).
        "invites": [
            {
                "ref": ref,
                **({"token": invite.token} if with_tokens else {}),
                "created_by": username(invite.created_by_id),
                "created_at": when(invite.created_at),
                "expires_at": when(invite.expires_at),
                "max_uses": invite.max_uses,
                "uses": invite.uses,
                "revoked_at": when(invite.revoked_at),
                "revoked_by": username(invite.revoked_by_id),
            }
            for ref, invite in enumerate(circle.invites.order_by("pk"), start=1)
        ],
        # How players are paid (later than version 1's first exports: may be missing).
        "payment_details": [
            {
                "player": name(details.player_id),
                "bank_bin": details.bank_bin,
                "account_number": details.account_number,
                "account_name": details.account_name,
                "link": details.link,
                "updated_by": username(details.updated_by_id),
                "updated_at": when(details.updated_at),
            }
            for details in PaymentDetails.objects.filter(player__circle=circle).order_by("pk")
        ],
        "sessions": [
            _session_document(session, username, name, with_tokens=with_tokens)
            for session in sessions
        ],
    }


def export_session(session: Session, *, accounts: bool = True) -> dict[str, Any]:
    """One session as the circle export writes it, in a document of its own (format
    `squarescores.session`): settings, seats, every deal with its taps, events,
    corrections and ledger, payments. Share link tokens are never in it; accounts are
    named only when `accounts` (a share link's download names none).

    Queries: a fixed number, however many deals there are.
    """
    player_names = dict(
        Player.objects.filter(circle_id=session.circle_id).values_list("pk", "name")
    )
    users = (
        {user.pk: user.get_username() for user in get_user_model().objects.all()}
        if accounts
        else {}
    )

    def username(user_id: int | None) -> str | None:
        return users.get(user_id) if user_id is not None else None

    def name(player_id: int | None) -> str | None:
        return player_names[player_id] if player_id is not None else None

    stored = _with_history(Session.objects.filter(pk=session.pk)).get()
    return {
        "format": SESSION_FORMAT,
        "version": VERSION,
        "circle": session.circle.name,
        "session": _session_document(stored, username, name, with_tokens=False),
    }


def _session_document(
    session: Session, username: Namer, name: Namer, *, with_tokens: bool
) -> dict[str, Any]:
    """A session as the export writes it; `username` and `name` turn ids into names."""

    def name_of_stored(player_id: Any) -> str:
        return str(name(int(player_id)))

    link_refs = {link.pk: ref for ref, link in enumerate(session.share_links.all(), 1)}

    def record_fields(row: Tap | DealEvent, correction_refs: dict[int, int]) -> dict:
        return {
            "seq": row.seq,
            "recorded_by": username(row.recorded_by_id),
            "recorded_via": link_refs.get(row.recorded_via_id),
            "recorded_at": when(row.recorded_at),
            "undone_at": when(row.undone_at),
            "undone_by": username(row.undone_by_id),
            "undone_via": link_refs.get(row.undone_via_id),
            "correction": correction_refs.get(row.correction_id),
        }

    def export_deal(deal: Deal) -> dict[str, Any]:
        corrections = list(deal.corrections.all())
        taps, events = list(deal.taps.all()), list(deal.dealevents.all())
        # The row's own number lags behind its records' (`Deal.last_seq`): the highest given.
        last_seq = max([deal.last_seq, *(row.seq for row in [*taps, *events])])
        correction_refs = {correction.pk: ref for ref, correction in enumerate(corrections, 1)}
        return {
            "number": deal.number,
            "status": deal.status,
            "dealer": name(deal.dealer_id),
            "leader": name(deal.leader_id),
            "winner": name(deal.winner_id),
            "loser": name(deal.loser_id),
            "trading": swap_players(deal.trading, name_of_stored),
            "last_seq": last_seq,
            "opened_at": when(deal.opened_at),
            "closed_at": when(deal.closed_at),
            "players": [
                {
                    "player": name(deal_player.player_id),
                    "seat": deal_player.seat,
                    "place": deal_player.place,
                    "points": deal_player.points,
                }
                for deal_player in deal.deal_players.all()
            ],
            "corrections": [
                {
                    "ref": correction_refs[correction.pk],
                    "reason": correction.reason,
                    "before": swap_players(correction.before, name_of_stored),
                    "after": swap_players(correction.after, name_of_stored),
                    "made_by": username(correction.made_by_id),
                    "made_via": link_refs.get(correction.made_via_id),
                    "made_at": when(correction.made_at),
                }
                for correction in corrections
            ],
            "taps": [
                {
                    **record_fields(tap, correction_refs),
                    "player": name(tap.player_id),
                    "place": tap.place,
                    "loser": tap.loser,
                    "not_played": sorted(player.name for player in tap.not_played.all()),
                }
                for tap in taps
            ],
            "events": [
                {
                    **record_fields(event, correction_refs),
                    **{field: getattr(event, field) for field in EVENT_FIELDS},
                    "player": name(event.player_id),
                    "by": name(event.by_id),
                    "owner": name(event.owner_id),
                }
                for event in events
            ],
            "ledger": [
                {
                    "position": line.position,
                    "payer": name(line.payer_id),
                    "payee": name(line.payee_id),
                    "amount": str(line.amount),
                    "reason": line.reason,
                }
                for line in deal.ledger_lines.all()
            ],
        }

    return {
        **{field: getattr(session, field) for field in SESSION_FIELDS},
        "stake": str(session.stake),
        "created_by": username(session.created_by_id),
        "started_at": when(session.started_at),
        "ended_at": when(session.ended_at),
        "ended_by": username(session.ended_by_id),
        "ended_via": link_refs.get(session.ended_via_id),
        "seats": [
            {
                "player": name(seat.player_id),
                "position": seat.position,
                "seated_by": username(seat.seated_by_id),
                "seated_via": link_refs.get(seat.seated_via_id),
                "seated_at": when(seat.seated_at),
            }
            for seat in session.seats.all()
        ],
        "share_links": [
            {
                "ref": link_refs[link.pk],
                "role": link.role,
                **({"token": link.token} if with_tokens else {}),
                "created_by": username(link.created_by_id),
                "created_at": when(link.created_at),
                "revoked_at": when(link.revoked_at),
                "revoked_by": username(link.revoked_by_id),
                "revoked_via": link_refs.get(link.revoked_via_id),
            }
            for link in session.share_links.all()
        ],
        "deals": [export_deal(deal) for deal in session.deals.all()],
        "payments": [
            {
                "payer": name(payment.payer_id),
                "payee": name(payment.payee_id),
                "amount": str(payment.amount),
                "paid_at": when(payment.paid_at),
                "recorded_by": username(payment.recorded_by_id),
                "recorded_via": link_refs.get(payment.recorded_via_id),
                "cancelled_at": when(payment.cancelled_at),
                "cancelled_by": username(payment.cancelled_by_id),
                "cancelled_via": link_refs.get(payment.cancelled_via_id),
            }
            for payment in session.payments.all()
        ],
    }
