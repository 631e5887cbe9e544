"""A circle as one JSON document, and back: the backup path (docs/backup.md).

`export_circle(circle)` gives everything the circle holds: players, members, sessions,
seats, share links, deals with their players, taps (undone ones too), events, corrections,
ledger lines, and payments. `import_circle(data)` stores such a document in another
instance (or this one, once the circle is gone) in one transaction.

The document names things instead of numbering them, so it reads on its own and survives
a move between databases: players by name (unique in a circle), accounts by username,
deals by number, share links and corrections by their place in their session or deal
(`ref`). Player ids inside stored snapshots (trading reminders, a correction's before and
after) are swapped for names on the way out and back on the way in. Exporting an imported
circle gives the same document.

Share link tokens are secrets and stay out unless asked for (`with_tokens`). A link
imported without its token gets a fresh one and is stored revoked: the history that
points at it stays, and nobody gains a working link they were not given.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.db import DataError, IntegrityError, connection, transaction
from django.db.models import Prefetch
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from tracker.models import (
    Circle,
    Correction,
    Deal,
    DealEvent,
    DealPlayer,
    LedgerLine,
    Payment,
    Player,
    Seat,
    Session,
    ShareLink,
    Tap,
)
from tracker.services import session_tallies_rebuild

FORMAT = "squarescores.circle"
VERSION = 1

SESSION_FIELDS = (
    "name",
    "format",
    "stake_rule",
    "currency",
    "hand_size",
    "guaransheed",
    "got_to_get_in",
    "instant_wins",
    "trading",
    "penalties",
)
EVENT_FIELDS = (
    "type",
    "beaten_with",
    "black",
    "red",
    "cards",
    "black_twos",
    "red_twos",
    "cutups",
    "bombs",
    "blind",
    "kind",
)
# Keys under which stored snapshots hold a player id (see `_swap_players`).
PLAYER_KEYS = frozenset({"player", "by", "owner", "giver", "receiver", "from", "to"})


class BackupError(Exception):
    """An export that cannot be imported here, with a sentence saying why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --- Helpers both ways ----------------------------------------------------------------


def _when(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def _parse_when(text: str | None) -> datetime | None:
    if text is None:
        return None
    moment = parse_datetime(text)
    if moment is None:
        raise ValueError(f"{text!r} is not a date and time")
    return moment


def _swap_players(value: Any, swap: Callable[[Any], Any]) -> Any:
    """A stored snapshot with every player reference passed through `swap`.

    Snapshots are Deal.trading (giver, receiver) and Correction.before/after: records
    (player, by, owner, not_played), points keyed by player, ledger lines (from, to).
    """
    if isinstance(value, list):
        return [_swap_players(item, swap) for item in value]
    if not isinstance(value, dict):
        return value
    swapped: dict[str, Any] = {}
    for key, item in value.items():
        if key in PLAYER_KEYS and item is not None:
            swapped[key] = swap(item)
        elif key == "not_played":
            swapped[key] = [swap(player) for player in item]
        elif key == "points":
            swapped[key] = {str(swap(player)): points for player, points in item.items()}
        else:
            swapped[key] = _swap_players(item, swap)
    return swapped


# --- Export ---------------------------------------------------------------------------


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

    def name_of_stored(player_id: Any) -> str:
        return player_names[int(player_id)]

    sessions = circle.sessions.order_by("pk").prefetch_related(
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

    def export_session(session: Session) -> dict[str, Any]:
        link_refs = {link.pk: ref for ref, link in enumerate(session.share_links.all(), 1)}

        def record_fields(row: Tap | DealEvent, correction_refs: dict[int, int]) -> dict:
            return {
                "seq": row.seq,
                "recorded_by": username(row.recorded_by_id),
                "recorded_via": link_refs.get(row.recorded_via_id),
                "recorded_at": _when(row.recorded_at),
                "undone_at": _when(row.undone_at),
                "undone_by": username(row.undone_by_id),
                "undone_via": link_refs.get(row.undone_via_id),
                "correction": correction_refs.get(row.correction_id),
            }

        def export_deal(deal: Deal) -> dict[str, Any]:
            corrections = list(deal.corrections.all())
            correction_refs = {correction.pk: ref for ref, correction in enumerate(corrections, 1)}
            return {
                "number": deal.number,
                "status": deal.status,
                "dealer": name(deal.dealer_id),
                "leader": name(deal.leader_id),
                "winner": name(deal.winner_id),
                "loser": name(deal.loser_id),
                "trading": _swap_players(deal.trading, name_of_stored),
                "last_seq": deal.last_seq,
                "opened_at": _when(deal.opened_at),
                "closed_at": _when(deal.closed_at),
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
                        "before": _swap_players(correction.before, name_of_stored),
                        "after": _swap_players(correction.after, name_of_stored),
                        "made_by": username(correction.made_by_id),
                        "made_via": link_refs.get(correction.made_via_id),
                        "made_at": _when(correction.made_at),
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
                    for tap in deal.taps.all()
                ],
                "events": [
                    {
                        **record_fields(event, correction_refs),
                        **{field: getattr(event, field) for field in EVENT_FIELDS},
                        "player": name(event.player_id),
                        "by": name(event.by_id),
                        "owner": name(event.owner_id),
                    }
                    for event in deal.dealevents.all()
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
            "started_at": _when(session.started_at),
            "ended_at": _when(session.ended_at),
            "seats": [
                {"player": name(seat.player_id), "position": seat.position}
                for seat in session.seats.all()
            ],
            "share_links": [
                {
                    "ref": link_refs[link.pk],
                    "role": link.role,
                    **({"token": link.token} if with_tokens else {}),
                    "created_by": username(link.created_by_id),
                    "created_at": _when(link.created_at),
                    "revoked_at": _when(link.revoked_at),
                }
                for link in session.share_links.all()
            ],
            "deals": [export_deal(deal) for deal in session.deals.all()],
            "payments": [
                {
                    "payer": name(payment.payer_id),
                    "payee": name(payment.payee_id),
                    "amount": str(payment.amount),
                    "paid_at": _when(payment.paid_at),
                    "recorded_by": username(payment.recorded_by_id),
                    "recorded_via": link_refs.get(payment.recorded_via_id),
                    "cancelled_at": _when(payment.cancelled_at),
                    "cancelled_by": username(payment.cancelled_by_id),
                    "cancelled_via": link_refs.get(payment.cancelled_via_id),
                }
                for payment in session.payments.all()
            ],
        }

    return {
        "format": FORMAT,
        "version": VERSION,
        "circle": {
            "name": circle.name,
            "owner": username(circle.owner_id),
            "members": sorted(username(member.pk) for member in circle.members.all()),
            "created_at": _when(circle.created_at),
        },
        "players": [
            {"name": player.name, "created_at": _when(player.created_at)}
            for player in circle.players.order_by("pk")
        ],
        "sessions": [export_session(session) for session in sessions],
    }


# --- Import ---------------------------------------------------------------------------


def _usernames(data: Mapping[str, Any]) -> set[str]:
    """Every account the document mentions."""
    names = {data["circle"]["owner"], *data["circle"]["members"]}
    for session in data["sessions"]:
        names.add(session["created_by"])
        names.update(link["created_by"] for link in session["share_links"])
        for payment in session["payments"]:
            # Who cancelled a mark, and links, came later: older exports lack them.
            names.update((payment["recorded_by"], payment.get("cancelled_by")))
        for deal in session["deals"]:
            names.update(correction["made_by"] for correction in deal["corrections"])
            for record in (*deal["taps"], *deal["events"]):
                names.update((record["recorded_by"], record["undone_by"]))
    names.discard(None)
    return names


def check_format(data: Any) -> None:
    """Refuse anything but an export this version reads."""
    if not isinstance(data, Mapping) or data.get("format") != FORMAT:
        raise BackupError(f"This is not a SquareScores circle export (format {FORMAT!r}).")
    if data.get("version") != VERSION:
        raise BackupError(
            f"This export is version {data.get('version')!r}; this SquareScores reads "
            f"version {VERSION}."
        )


def missing_usernames(data: Mapping[str, Any]) -> list[str]:
    """The accounts `import_circle` would create (with no usable password)."""
    known = set(
        get_user_model()
        .objects.filter(username__in=_usernames(data))
        .values_list("username", flat=True)
    )
    return sorted(_usernames(data) - known)


def import_circle(data: Mapping[str, Any]) -> Circle:
    """Store an exported circle; all or nothing.

    Accounts are matched by username; one that does not exist is created with no usable
    password (its owner sets one with "forgot password" or `manage.py changepassword`).
    Raises BackupError if the document is not an export, or the owner already has a circle
    of that name here.
    """
    check_format(data)
    if not connection.features.can_return_rows_from_bulk_insert:
        # The import maps ids from bulk inserts: PostgreSQL, or SQLite 3.35 and newer.
        raise BackupError("Importing needs PostgreSQL, or SQLite 3.35 or newer.")
    try:
        with transaction.atomic():
            circle = _import(data)
            # Running totals are derived, so they are not exported: rebuild them here.
            for session in circle.sessions.all():
                session_tallies_rebuild(session=session)
            return circle
    except (KeyError, TypeError, ValueError, ArithmeticError) as error:
        raise BackupError(f"The export is incomplete or malformed: {error!r}.") from None
    except (IntegrityError, DataError) as error:
        raise BackupError(f"The export breaks a rule of the database: {error}.") from None


def _import(data: Mapping[str, Any]) -> Circle:
    circle_data = data["circle"]
    if Circle.objects.filter(
        name=circle_data["name"], owner__username=circle_data["owner"]
    ).exists():
        raise BackupError(
            f'{circle_data["owner"]} already has a circle named "{circle_data["name"]}" '
            "here; rename or remove it first."
        )

    User = get_user_model()
    users = {
        user.get_username(): user for user in User.objects.filter(username__in=_usernames(data))
    }
    for missing in sorted(_usernames(data) - set(users)):
        user = User(username=missing)
        user.set_unusable_password()
        user.save()
        users[missing] = user

    def user_id(username: str | None) -> int | None:
        return users[username].pk if username is not None else None

    circle = Circle.objects.create(
        name=circle_data["name"],
        owner=users[circle_data["owner"]],
        created_at=_parse_when(circle_data["created_at"]),
    )
    circle.members.set([users[member] for member in circle_data["members"]])

    players = Player.objects.bulk_create(
        Player(circle=circle, name=player["name"], created_at=_parse_when(player["created_at"]))
        for player in data["players"]
    )
    player_ids = {player.name: player.pk for player in players}

    def player_id(name: str | None) -> int | None:
        return player_ids[name] if name is not None else None

    def id_of_stored(name: Any) -> int:
        return player_ids[name]

    session_rows = data["sessions"]
    sessions = Session.objects.bulk_create(
        Session(
            circle=circle,
            **{field: row[field] for field in SESSION_FIELDS},
            stake=Decimal(row["stake"]),
            created_by_id=user_id(row["created_by"]),
            started_at=_parse_when(row["started_at"]),
            ended_at=_parse_when(row["ended_at"]),
        )
        for row in session_rows
    )
    Seat.objects.bulk_create(
        Seat(session=session, player_id=player_id(seat["player"]), position=seat["position"])
        for session, row in zip(sessions, session_rows, strict=True)
        for seat in row["seats"]
    )

    # Share links, per session by ref.
    links: list[ShareLink] = []
    link_keys: list[tuple[int, int]] = []
    for session, row in zip(sessions, session_rows, strict=True):
        for link in row["share_links"]:
            token = link.get("token")
            revoked_at = _parse_when(link["revoked_at"])
            if token is None:
                token, revoked_at = secrets.token_urlsafe(32), revoked_at or timezone.now()
            elif ShareLink.objects.filter(token=token).exists():
                raise BackupError("A share link in the export is already in use here.")
            links.append(
                ShareLink(
                    session=session,
                    role=link["role"],
                    token=token,
                    created_by_id=user_id(link["created_by"]),
                    created_at=_parse_when(link["created_at"]),
                    revoked_at=revoked_at,
                )
            )
            link_keys.append((session.pk, link["ref"]))
    ShareLink.objects.bulk_create(links)
    link_ids = {key: link.pk for key, link in zip(link_keys, links, strict=True)}

    deal_rows = [
        (session, deal)
        for session, row in zip(sessions, session_rows, strict=True)
        for deal in row["deals"]
    ]
    deals = Deal.objects.bulk_create(
        Deal(
            session=session,
            number=row["number"],
            status=row["status"],
            dealer_id=player_id(row["dealer"]),
            leader_id=player_id(row["leader"]),
            winner_id=player_id(row["winner"]),
            loser_id=player_id(row["loser"]),
            trading=_swap_players(row["trading"], id_of_stored),
            last_seq=row["last_seq"],
            opened_at=_parse_when(row["opened_at"]),
            closed_at=_parse_when(row["closed_at"]),
        )
        for session, row in deal_rows
    )
    deal_pairs = [(deal, row) for deal, (_, row) in zip(deals, deal_rows, strict=True)]

    def session_link_id(session: Session, ref: int | None) -> int | None:
        return link_ids[(session.pk, ref)] if ref is not None else None

    def link_id(deal: Deal, ref: int | None) -> int | None:
        return session_link_id(deal.session, ref)

    DealPlayer.objects.bulk_create(
        DealPlayer(
            deal=deal,
            player_id=player_id(seat["player"]),
            seat=seat["seat"],
            place=seat["place"],
            points=seat["points"],
        )
        for deal, row in deal_pairs
        for seat in row["players"]
    )

    correction_keys = [
        (deal, correction["ref"]) for deal, row in deal_pairs for correction in row["corrections"]
    ]
    corrections = Correction.objects.bulk_create(
        Correction(
            deal=deal,
            reason=correction["reason"],
            before=_swap_players(correction["before"], id_of_stored),
            after=_swap_players(correction["after"], id_of_stored),
            made_by_id=user_id(correction["made_by"]),
            made_via_id=link_id(deal, correction["made_via"]),
            made_at=_parse_when(correction["made_at"]),
        )
        for deal, row in deal_pairs
        for correction in row["corrections"]
    )
    correction_ids = {
        (deal.pk, ref): correction.pk
        for (deal, ref), correction in zip(correction_keys, corrections, strict=True)
    }

    def record_fields(deal: Deal, record: Mapping[str, Any]) -> dict[str, Any]:
        correction = record["correction"]
        return {
            "deal": deal,
            "seq": record["seq"],
            "recorded_by_id": user_id(record["recorded_by"]),
            "recorded_via_id": link_id(deal, record["recorded_via"]),
            "recorded_at": _parse_when(record["recorded_at"]),
            "undone_at": _parse_when(record["undone_at"]),
            "undone_by_id": user_id(record["undone_by"]),
            # Older exports have no "undone_via": the link is then unknown.
            "undone_via_id": link_id(deal, record.get("undone_via")),
            "correction_id": (
                correction_ids[(deal.pk, correction)] if correction is not None else None
            ),
        }

    tap_rows = [(deal, tap) for deal, row in deal_pairs for tap in row["taps"]]
    taps = Tap.objects.bulk_create(
        Tap(
            **record_fields(deal, tap),
            player_id=player_id(tap["player"]),
            place=tap["place"],
            loser=tap["loser"],
        )
        for deal, tap in tap_rows
    )
    Tap.not_played.through.objects.bulk_create(
        Tap.not_played.through(tap_id=tap.pk, player_id=player_id(name))
        for tap, (_, row) in zip(taps, tap_rows, strict=True)
        for name in row["not_played"]
    )
    DealEvent.objects.bulk_create(
        DealEvent(
            **record_fields(deal, event),
            **{field: event[field] for field in EVENT_FIELDS},
            player_id=player_id(event["player"]),
            by_id=player_id(event["by"]),
            owner_id=player_id(event["owner"]),
        )
        for deal, row in deal_pairs
        for event in row["events"]
    )
    LedgerLine.objects.bulk_create(
        LedgerLine(
            deal=deal,
            session_id=deal.session_id,
            position=line["position"],
            payer_id=player_id(line["payer"]),
            payee_id=player_id(line["payee"]),
            amount=Decimal(line["amount"]),
            reason=line["reason"],
        )
        for deal, row in deal_pairs
        for line in row["ledger"]
    )
    Payment.objects.bulk_create(
        Payment(
            session=session,
            payer_id=player_id(payment["payer"]),
            payee_id=player_id(payment["payee"]),
            amount=Decimal(payment["amount"]),
            paid_at=_parse_when(payment["paid_at"]),
            recorded_by_id=user_id(payment["recorded_by"]),
            recorded_via_id=session_link_id(session, payment.get("recorded_via")),
            cancelled_at=_parse_when(payment["cancelled_at"]),
            cancelled_by_id=user_id(payment.get("cancelled_by")),
            cancelled_via_id=session_link_id(session, payment.get("cancelled_via")),
        )
        for session, row in zip(sessions, session_rows, strict=True)
        for payment in row["payments"]
    )
    return circle


def summary(data: Mapping[str, Any]) -> str:
    """A line saying what a document holds, for the commands' output."""
    deal_count = sum(len(session["deals"]) for session in data["sessions"])
    return (
        f'circle "{data["circle"]["name"]}": {len(data["players"])} players, '
        f"{len(data['sessions'])} sessions, {deal_count} deals"
    )
