"""A circle's members and invites, as the members page and the API show them."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.utils import timezone

from tracker.models import Circle, Invite, Player


@dataclass
class Member:
    user: User
    owner: bool
    player: Player | None  # the player they said is them, if any


def circle_members(circle: Circle) -> list[Member]:
    """The circle's members by username, the owner marked, each with their player. Two
    queries: the members, the players linked to them."""
    players = {player.user_id: player for player in circle.players.filter(user__isnull=False)}
    return [
        Member(user=user, owner=user.pk == circle.owner_id, player=players.get(user.pk))
        for user in circle.members.order_by("username")
    ]


def circle_invites(circle: Circle) -> list[Invite]:
    """The circle's invites that still let someone join, newest first (one query)."""
    live = circle.invites.filter(revoked_at__isnull=True, expires_at__gt=timezone.now())
    return [invite for invite in live.select_related("created_by") if not invite.used_up]


def my_player(circle: Circle, user: User) -> Player | None:
    """The player of the circle a member said is them (one query)."""
    return circle.players.filter(user=user).first()
