"""An exported circle stored again, all or nothing (docs/backup.md)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.db import DataError, IntegrityError, connection, transaction
from django.utils import timezone

from tracker.backup.common import (
    EVENT_FIELDS,
    SESSION_FIELDS,
    SESSION_FIELDS_ADDED,
    BackupError,
    check_format,
    parse_when,
    swap_players,
    usernames,
)
from tracker.models import (
    Circle,
    Correction,
    Deal,
    DealEvent,
    DealPlayer,
    Invite,
    LedgerLine,
    Payment,
    PaymentDetails,
    Player,
    Seat,
    Session,
    ShareLink,
    Tap,
)
from tracker.services import session_tallies_rebuild


def missing_usernames(data: Mapping[str, Any]) -> list[str]:
    """The accounts `import_circle` would create (with no usable password)."""
    known = set(
        get_user_model()
        .objects.filter(username__in=usernames(data))
        .values_list("username", flat=True)
    )
    return sorted(usernames(data) - known)


def import_circle(
    data: Mapping[str, Any], *, owner: str | None = None, map_members: bool = False
) -> Circle:
    """Store an exported circle; all or nothing.

    Who may see the circle here is the operator's word, never a username that happens to
    match: with `owner`, the circle comes in owned by that account (which must exist) and
    it is the only member; with `map_members`, the export's owner and members are the
    accounts of the same usernames here, and so are the players' "this is me" links.
    Accounts named in the history (who tapped, corrected, revoked...) are matched by
    username either way; one that does not exist is created with no usable password.
    Raises BackupError if the document is not an export, neither `owner` nor
    `map_members` is given, or the owner already has a circle of that name here.
    """
    check_format(data)
    if (owner is None) == (not map_members):
        raise BackupError(
            "Say who gets the circle: an owner account (the only member), or that the "
            "export's members are the accounts of the same usernames here."
        )
    if owner is not None and not get_user_model().objects.filter(username=owner).exists():
        raise BackupError(f"There is no account {owner!r} here to own the circle.")
    if not connection.features.can_return_rows_from_bulk_insert:
        # The import maps ids from bulk inserts: PostgreSQL, or SQLite 3.35 and newer.
        raise BackupError("Importing needs PostgreSQL, or SQLite 3.35 or newer.")
    try:
        with transaction.atomic():
            circle = _import(data, owner=owner)
            # Running totals are derived, so they are not exported: rebuild them here.
            for session in circle.sessions.all():
                session_tallies_rebuild(session=session)
            return circle
    except (KeyError, TypeError, ValueError, ArithmeticError) as error:
        raise BackupError(f"The export is incomplete or malformed: {error!r}.") from None
    except (IntegrityError, DataError) as error:
        raise BackupError(f"The export breaks a rule of the database: {error}.") from None


def _import(data: Mapping[str, Any], *, owner: str | None) -> Circle:
    """`owner`: the account the circle comes in with, alone; None: the export's owner and
    members (and "this is me" links) by username."""
    circle_data = data["circle"]
    owner_name = owner if owner is not None else circle_data["owner"]
    if Circle.objects.filter(name=circle_data["name"], owner__username=owner_name).exists():
        raise BackupError(
            f'{owner_name} already has a circle named "{circle_data["name"]}" '
            "here; rename or remove it first."
        )

    User = get_user_model()
    named = usernames(data) | {owner_name}
    users = {user.get_username(): user for user in User.objects.filter(username__in=named)}
    for missing in sorted(named - set(users)):
        user = User(username=missing)
        user.set_unusable_password()
        user.save()
        users[missing] = user

    def user_id(username: str | None) -> int | None:
        return users[username].pk if username is not None else None

    circle = Circle.objects.create(
        name=circle_data["name"],
        owner=users[owner_name],
        created_at=parse_when(circle_data["created_at"]),
    )
    if owner is None:
        circle.members.set([users[member] for member in circle_data["members"]])
    else:
        circle.members.set([users[owner]])

    def claimed_by(player: Mapping[str, Any]) -> int | None:
        # "This is me" only for accounts the operator said are the same people.
        return user_id(player.get("user")) if owner is None else None

    players = Player.objects.bulk_create(
        Player(
            circle=circle,
            name=player["name"],
            created_at=parse_when(player["created_at"]),
            user_id=claimed_by(player),
        )
        for player in data["players"]
    )
    _import_invites(circle, data.get("invites", []), user_id)
    player_ids = {player.name: player.pk for player in players}

    def player_id(name: str | None) -> int | None:
        return player_ids[name] if name is not None else None

    def id_of_stored(name: Any) -> int:
        return player_ids[name]

    PaymentDetails.objects.bulk_create(
        PaymentDetails(
            player_id=player_ids[details["player"]],
            bank_bin=details["bank_bin"],
            account_number=details["account_number"],
            account_name=details["account_name"],
            link=details["link"],
            updated_by_id=user_id(details["updated_by"]),
            updated_at=parse_when(details["updated_at"]),
        )
        for details in data.get("payment_details", [])
    )

    session_rows = data["sessions"]
    sessions = Session.objects.bulk_create(
        Session(
            circle=circle,
            **{field: row.get(field, SESSION_FIELDS_ADDED.get(field)) for field in SESSION_FIELDS},
            stake=Decimal(row["stake"]),
            created_by_id=user_id(row["created_by"]),
            started_at=parse_when(row["started_at"]),
            ended_at=parse_when(row["ended_at"]),
        )
        for row in session_rows
    )

    # Share links, per session by ref.
    links: list[ShareLink] = []
    link_keys: list[tuple[int, int]] = []
    link_rows: list[Mapping[str, Any]] = []
    for session, row in zip(sessions, session_rows, strict=True):
        for link in row["share_links"]:
            token = link.get("token")
            revoked_at = parse_when(link["revoked_at"])
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
                    created_at=parse_when(link["created_at"]),
                    revoked_at=revoked_at,
                )
            )
            link_keys.append((session.pk, link["ref"]))
            link_rows.append(link)
    ShareLink.objects.bulk_create(links)
    link_ids = {key: link.pk for key, link in zip(link_keys, links, strict=True)}

    def session_link_id(session: Session, ref: int | None) -> int | None:
        return link_ids[(session.pk, ref)] if ref is not None else None

    # What names a link of its own session is set once the links exist. Older exports
    # lack who ended, revoked or seated: the link or account is then unknown.
    for link, row in zip(links, link_rows, strict=True):
        link.revoked_by_id = user_id(row.get("revoked_by"))
        link.revoked_via_id = session_link_id(link.session, row.get("revoked_via"))
    ShareLink.objects.bulk_update(links, ["revoked_by", "revoked_via"])
    for session, row in zip(sessions, session_rows, strict=True):
        session.ended_by_id = user_id(row.get("ended_by"))
        session.ended_via_id = session_link_id(session, row.get("ended_via"))
    Session.objects.bulk_update(sessions, ["ended_by", "ended_via"])
    Seat.objects.bulk_create(
        Seat(
            session=session,
            player_id=player_id(seat["player"]),
            position=seat["position"],
            seated_by_id=user_id(seat.get("seated_by")),
            seated_via_id=session_link_id(session, seat.get("seated_via")),
            seated_at=parse_when(seat.get("seated_at")) or session.started_at,
        )
        for session, row in zip(sessions, session_rows, strict=True)
        for seat in row["seats"]
    )

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
            trading=swap_players(row["trading"], id_of_stored),
            last_seq=row["last_seq"],
            opened_at=parse_when(row["opened_at"]),
            closed_at=parse_when(row["closed_at"]),
        )
        for session, row in deal_rows
    )
    deal_pairs = [(deal, row) for deal, (_, row) in zip(deals, deal_rows, strict=True)]

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
            before=swap_players(correction["before"], id_of_stored),
            after=swap_players(correction["after"], id_of_stored),
            made_by_id=user_id(correction["made_by"]),
            made_via_id=link_id(deal, correction["made_via"]),
            made_at=parse_when(correction["made_at"]),
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
            "recorded_at": parse_when(record["recorded_at"]),
            "undone_at": parse_when(record["undone_at"]),
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
            **event_values(event),
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
            paid_at=parse_when(payment["paid_at"]),
            recorded_by_id=user_id(payment["recorded_by"]),
            recorded_via_id=session_link_id(session, payment.get("recorded_via")),
            cancelled_at=parse_when(payment["cancelled_at"]),
            cancelled_by_id=user_id(payment.get("cancelled_by")),
            cancelled_via_id=session_link_id(session, payment.get("cancelled_via")),
        )
        for session, row in zip(sessions, session_rows, strict=True)
        for payment in row["payments"]
    )
    return circle


def event_values(event: Mapping[str, Any]) -> dict[str, Any]:
    """An exported event's own fields. Exports from before a cutup beaten named what beat
    it left `beaten_with` empty: it was scored as beaten by a cutup, and is read so."""
    values = {field: event[field] for field in EVENT_FIELDS}
    if values["type"] == "cutup_beaten" and not values["beaten_with"]:
        values["beaten_with"] = "cutup"
    return values


def _import_invites(circle: Circle, rows: Any, user_id: Any) -> None:
    """Invites as share links are: without its token (the default export), an invite
    gets a fresh one and comes in revoked, so nobody holds a working invite they were not
    given; a token already in use here is refused."""
    invites = []
    for row in rows:
        token = row.get("token")
        revoked_at = parse_when(row["revoked_at"])
        if token is None:
            token, revoked_at = secrets.token_urlsafe(32), revoked_at or timezone.now()
        elif Invite.objects.filter(token=token).exists():
            raise BackupError("An invite token in the export is already in use here.")
        invites.append(
            Invite(
                circle=circle,
                token=token,
                created_by_id=user_id(row["created_by"]),
                created_at=parse_when(row["created_at"]),
                expires_at=parse_when(row["expires_at"]),
                max_uses=row["max_uses"],
                uses=row["uses"],
                revoked_at=revoked_at,
                revoked_by_id=user_id(row["revoked_by"]),
            )
        )
    Invite.objects.bulk_create(invites)
