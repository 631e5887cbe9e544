"""Who belongs to a circle: invite links, joining by one, leaving, the owner removing a
member or handing the circle over, and a member saying which player they are.

A circle has one owner (`Circle.owner`), who is also a member. Any member may make and
revoke invites. The owner may remove a member and hand the circle to another member; a
member may leave; the owner cannot leave (hand the circle over first), so a circle always
has its owner among its members.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any, NamedTuple

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from tracker.access import Actor, access_player, check_invite, invite_by_token
from tracker.errors import Conflict, Forbidden, Invalid, NotFound
from tracker.models import Circle, Invite, Player, Session, ShareLink
from tracker.services.locks import sessions_moved_on

INVITE_DAYS = (1, 30)  # an invite lasts 1 to 30 days
INVITE_USES = (1, 100)  # for 1 to 100 joins, or any number (None)
LIVE_INVITES = 20  # a circle's invites that work at once

NO_MEMBER = gettext_noop("There is no member %(id)s in this circle.")
OWNER_ONLY = gettext_noop("Only the circle's owner can do this.")
OWNER_STAYS = gettext_noop("The owner cannot leave the circle: hand it to another member first.")
ALREADY_OWNER = gettext_noop("%(name)s already owns this circle.")
INVITE_DAYS_RANGE = gettext_noop("An invite lasts 1 to 30 days.")
INVITE_USES_RANGE = gettext_noop("An invite is for 1 to 100 people, or for any number.")
TOO_MANY_INVITES = gettext_noop(
    "This circle already has %(most)s invites that work; revoke one first."
)
ALREADY_REVOKED = gettext_noop("This invite was already revoked.")
CLAIMED = gettext_noop("%(name)s is already linked to another member.")
NOT_YOURS = gettext_noop("%(name)s is not linked to you.")


def _locked_circle(circle_id: int) -> Circle:
    # NO KEY UPDATE: a write holding one of the circle's sessions may add a player (whose
    # foreign key takes KEY SHARE on this row) while a member is removed here, and the
    # removal then moves those sessions on: a plain FOR UPDATE would deadlock with it.
    return Circle.objects.select_for_update(no_key=True).get(pk=circle_id)


@transaction.atomic
def invite_create(
    *, circle: Circle, actor: Actor, days: int = 7, max_uses: int | None = 1
) -> Invite:
    """An invite link to `circle`, for `max_uses` joins (None: any number) over `days`."""
    if not INVITE_DAYS[0] <= days <= INVITE_DAYS[1]:
        raise Invalid(INVITE_DAYS_RANGE, code="invite_days")
    if max_uses is not None and not INVITE_USES[0] <= max_uses <= INVITE_USES[1]:
        raise Invalid(INVITE_USES_RANGE, code="invite_uses")
    circle = _locked_circle(circle.pk)
    live = [invite for invite in circle.invites.all() if invite.is_active]
    if len(live) >= LIVE_INVITES:
        raise Conflict(TOO_MANY_INVITES, code="too_many_invites", most=LIVE_INVITES)
    now = timezone.now()
    return Invite.objects.create(
        circle=circle,
        token=secrets.token_urlsafe(32),
        created_by=actor.user,
        created_at=now,
        expires_at=now + timedelta(days=days),
        max_uses=max_uses,
    )


@transaction.atomic
def invite_revoke(*, invite_id: int, actor: Actor) -> Invite:
    invite = Invite.objects.select_for_update().get(pk=invite_id)
    if invite.revoked_at is not None:
        raise Conflict(ALREADY_REVOKED, code="invite_revoked")
    invite.revoked_at, invite.revoked_by = timezone.now(), actor.user
    invite.save(update_fields=["revoked_at", "revoked_by"])
    return invite


@transaction.atomic
def invite_accept(*, token: str, user: User) -> Circle:
    """Join the invite's circle as a member. A member already is one: nothing changes and
    the invite is not used up, whatever its state (a member following an invite they
    spent themselves is answered with the circle, not told it is used up). The invite row
    is locked, so its last use goes to one."""
    found = invite_by_token(token, working=False)
    invite = Invite.objects.select_for_update().select_related("circle").get(pk=found.pk)
    circle = invite.circle
    if circle.members.filter(pk=user.pk).exists():
        return circle
    check_invite(invite)  # under the lock: the last use goes to one only
    circle.members.add(user)
    invite.uses += 1
    invite.save(update_fields=["uses"])
    return circle


def _member(circle: Circle, user_id: int) -> User:
    member = circle.members.filter(pk=user_id).first()
    if member is None:
        raise NotFound(NO_MEMBER, id=user_id)
    return member


class Removed(NamedTuple):
    """Who left the circle, and how many invites and share links went with them."""

    member: User
    invites: int = 0
    links: int = 0


@transaction.atomic
def member_remove(*, circle: Circle, user_id: int, actor: Actor) -> Removed:
    """The owner removes a member, or a member leaves (`user_id` is their own). Their
    "this is me" goes with them; the players and everything recorded stay.

    A member removed by the owner could see every invite of the circle and every share
    link of its sessions (members list them, tokens and all): those that work are
    revoked with them, naming the owner, or the removed member could join again or score
    on at once (found by a tester). A member who leaves revokes nothing."""
    circle = _locked_circle(circle.pk)
    member = _member(circle, user_id)
    assert actor.user is not None
    # Who may first: a member removing the owner is refused as any removal of another
    # is, not told that the owner cannot leave (which only the owner is trying).
    if actor.user.pk not in (member.pk, circle.owner_id):
        raise Forbidden(OWNER_ONLY, code="owner_only")
    if member.pk == circle.owner_id:
        raise Conflict(OWNER_STAYS, code="owner_stays")
    # Their pages open on the circle's sessions hear no more, at once, nor do those of
    # the links revoked here. The sessions first, as every write locks them (an account
    # deleted locks them, then its memberships: found by a review).
    sessions_moved_on(circle.sessions.all(), access=True)
    circle.members.remove(member)
    circle.players.filter(user=member).update(user=None)
    if member.pk == actor.user.pk:
        return Removed(member)
    now = timezone.now()
    # The ones that still work (`Invite.is_active`, as `invite_create` counts them).
    working = [invite.pk for invite in circle.invites.all() if invite.is_active]
    invites = Invite.objects.filter(pk__in=working).update(revoked_at=now, revoked_by=actor.user)
    links = ShareLink.objects.filter(session__circle=circle, revoked_at__isnull=True).update(
        revoked_at=now, **actor.fields("revoked")
    )
    return Removed(member, invites, links)


@transaction.atomic
def circle_hand_over(*, circle: Circle, user_id: int, actor: Actor) -> Circle:
    """The owner makes another member the owner (and stays a member)."""
    circle = _locked_circle(circle.pk)
    assert actor.user is not None
    if actor.user.pk != circle.owner_id:
        raise Forbidden(OWNER_ONLY, code="owner_only")
    member = _member(circle, user_id)
    if member.pk == circle.owner_id:
        raise Conflict(ALREADY_OWNER, code="already_owner", name=member.get_username())
    circle.owner = member
    circle.save(update_fields=["owner"])
    return circle


@transaction.atomic
def player_claim(*, player: Player, actor: Actor) -> Player:
    """ "This is me": the player is the caller's in this circle (a player they claimed
    before in the circle is let go). A player another member claimed is refused."""
    assert actor.user is not None
    # The circle first, as a member's removal locks it, and the caller's membership read
    # again under that lock: a claim that had read it before a removal committed would
    # otherwise link the player to someone the removal had just taken out, after its
    # "this is me" clean-up ran.
    _locked_circle(player.circle_id)
    access_player(actor, player.pk)
    player = Player.objects.select_for_update().get(pk=player.pk)
    if player.user_id not in (None, actor.user.pk):
        raise Conflict(CLAIMED, code="player_claimed", name=player.name)
    Player.objects.filter(circle_id=player.circle_id, user=actor.user).exclude(pk=player.pk).update(
        user=None
    )
    player.user = actor.user
    player.save(update_fields=["user"])
    return player


@transaction.atomic
def player_unclaim(*, player: Player, actor: Actor) -> Player:
    """ "Not me": the member who claimed the player, or the circle's owner, lets it go."""
    assert actor.user is not None
    # The circle, then the player, as a claim and a removal lock them: in the other order
    # a claim of the same player at the same moment deadlocked with it.
    circle = _locked_circle(player.circle_id)
    player = Player.objects.select_for_update(of=("self",)).get(pk=player.pk)
    player.circle = circle
    if player.user_id is None:
        return player
    if actor.user.pk not in (player.user_id, player.circle.owner_id):
        raise Forbidden(NOT_YOURS, code="not_your_player", name=player.name)
    player.user = None
    player.save(update_fields=["user"])
    return player


def account_shut_out(sender: Any, instance: User, **kwargs: Any) -> None:
    """post_save of an account: deactivated, or its password changed (a phone lost), its
    other devices are signed out; the pages they have open on its circles' sessions read
    the sign-in again (`tracker.views.live`) and hear no more, at once. Reads the marks
    `tracker.services.accounts.note_password_change` made before the save."""
    if getattr(instance, "_password_changed", False) or getattr(instance, "_deactivated", False):
        sessions_moved_on(Session.objects.filter(circle__members=instance), access=True)
        instance._deactivated = False  # type: ignore[attr-defined]


def account_going(sender: Any, instance: User, **kwargs: Any) -> None:
    """pre_delete of an account (the admin, `manage.py shell`): it leaves every circle
    with it, so the pages it has open on their sessions hear no more, at once, as when a
    member is removed. In the deletion's own transaction."""
    sessions_moved_on(Session.objects.filter(circle__members=instance), access=True)
