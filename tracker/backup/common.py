"""What export and import share: the document's format, how times and player references
are written, and the accounts a document names."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from django.utils.dateparse import parse_datetime

FORMAT = "squarescores.circle"
SESSION_FORMAT = "squarescores.session"  # one session, downloaded from its pages
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
    "five_consecutive_pairs",
)
# Session fields that exports made before them lack, and what they import as.
SESSION_FIELDS_ADDED = {"five_consecutive_pairs": False}
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


def when(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None


def parse_when(text: str | None) -> datetime | None:
    if text is None:
        return None
    moment = parse_datetime(text)
    if moment is None:
        raise ValueError(f"{text!r} is not a date and time")
    return moment


def swap_players(value: Any, swap: Callable[[Any], Any]) -> Any:
    """A stored snapshot with every player reference passed through `swap`.

    Snapshots are Deal.trading (giver, receiver) and Correction.before/after: records
    (player, by, owner, not_played), points keyed by player, ledger lines (from, to).
    """
    if isinstance(value, list):
        return [swap_players(item, swap) for item in value]
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
            swapped[key] = swap_players(item, swap)
    return swapped


def usernames(data: Mapping[str, Any]) -> set[str]:
    """Every account the document mentions."""
    names = {data["circle"]["owner"], *data["circle"]["members"]}
    # Who said "this is me", and who made and revoked invites, came later: older exports
    # lack them.
    names.update(player.get("user") for player in data["players"])
    for invite in data.get("invites", []):
        names.update((invite["created_by"], invite["revoked_by"]))
    names.update(details["updated_by"] for details in data.get("payment_details", []))
    for session in data["sessions"]:
        names.add(session["created_by"])
        # Who ended a session, revoked a link or seated the table came later: older
        # exports lack them.
        names.add(session.get("ended_by"))
        names.update(seat.get("seated_by") for seat in session["seats"])
        for link in session["share_links"]:
            names.update((link["created_by"], link.get("revoked_by")))
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


def summary(data: Mapping[str, Any]) -> str:
    """A line saying what a document holds, for the commands' output."""
    deal_count = sum(len(session["deals"]) for session in data["sessions"])
    return (
        f'circle "{data["circle"]["name"]}": {len(data["players"])} players, '
        f"{len(data['sessions'])} sessions, {deal_count} deals"
    )
