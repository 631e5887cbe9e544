"""Who may do what (SPEC 7), and finding objects only within what the caller may see.

Callers:
- a circle member (token or session login) may do everything in their circles;
- a scorer link may read its session and do what the table does during it: tap, undo,
  record and remove events, change the players between deals, correct a deal, mark
  transfers paid, end the match (the pages allow the same);
- a viewer link may only read its session;
- anyone else gets 401 (no credentials, or a bad or revoked token or link).

Each view says, per HTTP method, the least it needs (`view.access`): `MEMBER`, `SCORER` or
`VIEWER`. A link that can never do what the view does gets 403 before any lookup. Objects
are then looked up within the caller's reach, and anything outside it (another circle,
another session) is 404, exactly as if it did not exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework.exceptions import NotAuthenticated, NotFound, PermissionDenied
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from tracker.models import Circle, Deal, Player, Session, ShareLink
from tracker.services import Actor


class Access(Enum):
    MEMBER = "member"  # accounts of the circle only
    SCORER = "scorer"  # members, and the session's scorer link
    VIEWER = "viewer"  # members, and either link of the session


@dataclass(frozen=True)
class Caller:
    """Who sent the request: an account, or a share link."""

    user: AbstractBaseUser | None = None
    link: ShareLink | None = None

    @classmethod
    def of(cls, request: Request) -> Caller | None:
        if isinstance(request.auth, ShareLink):
            return cls(link=request.auth)
        if request.user is not None and request.user.is_authenticated:
            return cls(user=request.user)
        return None

    @property
    def actor(self) -> Actor:
        return Actor(user=self.user, link=self.link)

    @property
    def scope(self) -> str:
        """What idempotency keys are scoped to."""
        if self.link is not None:
            return f"link:{self.link.pk}"
        assert self.user is not None
        return f"user:{self.user.pk}"


NOT_SIGNED_IN = gettext_lazy(
    "Sign in first: send Authorization: Token <token> (from POST /api/auth/token/), "
    "or Authorization: Share <token> with a share link."
)
LINK_OUT_OF_REACH = gettext_lazy(
    "A share link reaches only its own session's scoring; sign in for this."
)
VIEWER_READ_ONLY = gettext_lazy(
    "A viewer link can only look; a scorer link or an account can record."
)


class CallerPermission(BasePermission):
    """Refuse anonymous callers (401) and links on views beyond their role (403)."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        caller = Caller.of(request)
        if caller is None:
            raise NotAuthenticated(NOT_SIGNED_IN)
        if caller.link is None:
            return True
        method = "GET" if request.method in ("HEAD", "OPTIONS") else request.method
        needed = view.access.get(method, Access.MEMBER)  # type: ignore[attr-defined]
        if needed is Access.MEMBER:
            raise PermissionDenied(LINK_OUT_OF_REACH)
        if needed is Access.SCORER and caller.link.role != ShareLink.Role.SCORER:
            raise PermissionDenied(VIEWER_READ_ONLY)
        return True


# --- Objects within reach ----------------------------------------------------------------


def circles_of(caller: Caller) -> QuerySet[Circle]:
    if caller.user is None:
        return Circle.objects.none()
    return Circle.objects.filter(members=caller.user)


def circle_of(caller: Caller, pk: int) -> Circle:
    circle = circles_of(caller).filter(pk=pk).first()
    if circle is None:
        raise NotFound(_("There is no circle %(id)s.") % {"id": pk})
    return circle


def player_of(caller: Caller, pk: int) -> Player:
    player = None
    if caller.user is not None:
        player = (
            Player.objects.select_related("circle")
            .filter(pk=pk, circle__members=caller.user)
            .first()
        )
    if player is None:
        raise NotFound(_("There is no player %(id)s.") % {"id": pk})
    return player


def sessions_of(caller: Caller, queryset: QuerySet[Session] | None = None) -> QuerySet[Session]:
    sessions = Session.objects.all() if queryset is None else queryset
    if caller.link is not None:
        return sessions.filter(pk=caller.link.session_id)
    return sessions.filter(circle__members=caller.user)


def session_of(caller: Caller, pk: int, queryset: QuerySet[Session] | None = None) -> Session:
    session = sessions_of(caller, queryset).filter(pk=pk).first()
    if session is None:
        raise NotFound(_("There is no session %(id)s.") % {"id": pk})
    return session


def deal_of(caller: Caller, pk: int) -> Deal:
    deals = Deal.objects.select_related("session").filter(pk=pk)
    if caller.link is not None:
        deals = deals.filter(session_id=caller.link.session_id)
    else:
        deals = deals.filter(session__circle__members=caller.user)
    deal = deals.first()
    if deal is None:
        raise NotFound(_("There is no deal %(id)s.") % {"id": pk})
    return deal


def share_link_of(caller: Caller, pk: int) -> ShareLink:
    link = None
    if caller.user is not None:
        link = ShareLink.objects.filter(pk=pk, session__circle__members=caller.user).first()
    if link is None:
        raise NotFound(_("There is no share link %(id)s.") % {"id": pk})
    return link
