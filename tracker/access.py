"""Who may see and do what (SPEC 7): one function per kind of object, used by every door.

The API's permission class and the pages' session decorator both come here, so a rule
about reach is written once. The shape follows zulip's `access_stream_by_id`: each
function takes the caller (`Actor`) and an id and returns the object, or raises:

- `NotFound` when the object is outside the caller's reach (another circle, another
  session), exactly as if it did not exist: the refusal names only the id that was sent;
- `Forbidden` when the caller can see the session but its role does not allow the action
  (a viewer link that taps, a link that makes share links).

Callers:
- a member of a circle (an account) may do everything in their circles;
- a scorer link may read its session and do what the table does during it: tap, undo,
  record and remove events, change the players between deals, correct a deal, mark
  transfers paid, end the match;
- a viewer link may only read its session.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Max, Model, QuerySet
from django.utils.translation import gettext_noop

from tracker import rows
from tracker.errors import Conflict, Forbidden, NotFound
from tracker.models import Circle, Deal, Invite, Player, Session, ShareLink
from tracker.rows import one_with

LINK_OUT_OF_REACH = gettext_noop(
    "A share link reaches only its own session's scoring; sign in for this."
)
VIEWER_READ_ONLY = gettext_noop(
    "A viewer link can only look; a scorer link or an account can record."
)
NO_CIRCLE = gettext_noop("There is no circle %(id)s.")
NO_PLAYER = gettext_noop("There is no player %(id)s.")
NO_SESSION = gettext_noop("There is no session %(id)s.")
NO_DEAL = gettext_noop("There is no deal %(id)s.")
NO_DEAL_HERE = gettext_noop("There is no deal %(id)s in this session.")
NO_DEAL_NUMBER = gettext_noop("There is no deal %(number)s in this session.")
DEAL_NOT_OPEN_YET = gettext_noop(
    "Deal %(number)s is not open yet: the deal before it has not been filed on the server."
)
NO_SHARE_LINK = gettext_noop("There is no share link %(id)s.")
NO_LINK = gettext_noop("This share link is not valid.")
NO_INVITE = gettext_noop("There is no invite %(id)s.")
INVITE_NOT_VALID = gettext_noop("This invite link is not valid; ask for a new one.")
INVITE_REVOKED = gettext_noop("This invite was revoked; ask for a new one.")
INVITE_EXPIRED = gettext_noop("This invite has expired; ask for a new one.")
INVITE_USED_UP = gettext_noop("This invite has been used as often as it may be; ask for a new one.")
LINK_REVOKED = gettext_noop("This share link was revoked; ask for a new one.")

# What `secrets.token_urlsafe` makes, and no longer than the column: anything else (a NUL
# byte, a space, a Unicode letter) is no token of ours and never reaches the database.
TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")


class Role(StrEnum):
    """What a caller may do in a session, from least to most."""

    VIEWER = "viewer"  # look
    SCORER = "scorer"  # look, and score what happens at the table
    MEMBER = "member"  # everything: an account of the circle

    def allows(self, needed: Role) -> bool:
        return _RANK[self] >= _RANK[needed]


_RANK = {Role.VIEWER: 0, Role.SCORER: 1, Role.MEMBER: 2}


@dataclass(frozen=True)
class Actor:
    """Who is asking or writing: an account, or a share link passed round the table.

    Every stored write names it: `fields("recorded")` gives `recorded_by` (the account)
    and `recorded_via` (the link) for a row to store.
    """

    # The project's user model (no AUTH_USER_MODEL override): what the rows' user
    # foreign keys hold.
    user: User | None = None
    link: ShareLink | None = None

    @property
    def role(self) -> Role:
        if self.link is not None:
            return Role(self.link.role)
        return Role.MEMBER

    @property
    def scope(self) -> str:
        """Whose idempotency keys and write rate these are: the link, or the account."""
        if self.link is not None:
            return f"link:{self.link.pk}"
        return f"user:{self.user.pk if self.user is not None else 0}"

    def fields(self, verb: str) -> dict[str, Any]:
        """`{"<verb>_by": account, "<verb>_via": link}`, for the row that records it."""
        return {f"{verb}_by": self.user, f"{verb}_via": self.link}


def require(actor: Actor, needed: Role) -> None:
    """Refuse (403) a caller whose role can never do this, before anything is looked up."""
    if actor.role.allows(needed):
        return
    if needed is Role.MEMBER:
        raise Forbidden(LINK_OUT_OF_REACH, code="link_out_of_reach")
    raise Forbidden(VIEWER_READ_ONLY, code="viewer_read_only")


def sees_payment_details(actor: Actor) -> bool:
    """Whether settle up shows this caller how payees are paid (bank accounts, payment
    links): the circle's members and the scorer link at the table, never a viewer link,
    which may be shared with anyone."""
    return actor.role.allows(Role.SCORER)


def sees_account_names(actor: Actor) -> bool:
    """Whether the caller is told which account recorded something (a payment, a tap in
    a session download): a member only; a link hears "a member"."""
    return actor.role is Role.MEMBER


_Row = TypeVar("_Row", bound=Model)


def _one(queryset: QuerySet[_Row]) -> _Row | None:
    """The row a lookup by a unique key finds, or None. Not `first()`: the ORDER BY it adds
    changes nothing for one row, and compiling it cost more than running the query."""
    return next(iter(queryset.order_by()[:1]), None)


# --- Links ------------------------------------------------------------------------------


def link_by_token(token: str) -> ShareLink:
    """The active share link with this token, with its session and circle.

    The link is found by its token, then the two are compared again in constant time, so
    a near miss takes as long as a far one.
    """
    link = None
    if TOKEN.fullmatch(token):
        # Written by hand (`tracker.rows`): every request by a link reads it, and the ORM
        # took longer to build the statement than PostgreSQL to run it.
        link = one_with(ShareLink, ("session", "session__circle"), "token", token)
    if link is None or not secrets.compare_digest(link.token.encode(), token.encode()):
        raise NotFound(NO_LINK, code="link_not_valid")
    if link.revoked_at is not None:
        raise NotFound(LINK_REVOKED, code="link_revoked")
    return link


# --- Invites ----------------------------------------------------------------------------


def invite_by_token(token: str, *, working: bool = True) -> Invite:
    """The invite with this token, with its circle, if it still lets someone join: found
    as a share link is (only token characters reach the database, compared again in
    constant time); revoked, expired or used up is refused, saying which. `working=False`:
    found whatever its state, for a caller who checks it later (`check_invite`)."""
    invite = None
    if TOKEN.fullmatch(token):
        invite = Invite.objects.select_related("circle").filter(token=token).first()
    if invite is None or not secrets.compare_digest(invite.token.encode(), token.encode()):
        raise NotFound(INVITE_NOT_VALID, code="invite_not_valid")
    if working:
        check_invite(invite)
    return invite


def check_invite(invite: Invite) -> None:
    """Refuse an invite that no longer lets anyone join, saying why."""
    if invite.revoked_at is not None:
        raise NotFound(INVITE_REVOKED, code="invite_revoked")
    if invite.used_up:
        raise NotFound(INVITE_USED_UP, code="invite_used_up")
    if not invite.is_active:
        raise NotFound(INVITE_EXPIRED, code="invite_expired")


def access_invite(actor: Actor, invite_id: int) -> Invite:
    """An invite to one of the caller's circles (members make, see and revoke them)."""
    require(actor, Role.MEMBER)
    invite = _one(Invite.objects.filter(pk=invite_id, circle__members=actor.user))
    if invite is None:
        raise NotFound(NO_INVITE, id=invite_id)
    return invite


# --- Circles and players ----------------------------------------------------------------


def circles_of(actor: Actor) -> QuerySet[Circle]:
    """The circles the caller is a member of; a link has none."""
    if actor.user is None:
        return Circle.objects.none()
    return Circle.objects.filter(members=actor.user)


def access_circle(actor: Actor, circle_id: int) -> Circle:
    require(actor, Role.MEMBER)
    circle = _one(circles_of(actor).filter(pk=circle_id))
    if circle is None:
        raise NotFound(NO_CIRCLE, id=circle_id)
    return circle


def access_player(actor: Actor, player_id: int, *, circle: Circle | None = None) -> Player:
    """A player of the caller's circles; with `circle`, of that circle only."""
    require(actor, Role.MEMBER)
    players = Player.objects.select_related("circle", "user").filter(
        pk=player_id, circle__members=actor.user
    )
    if circle is not None:
        players = players.filter(circle=circle)
    player = _one(players)
    if player is None:
        raise NotFound(NO_PLAYER, id=player_id)
    return player


# --- Sessions and deals -----------------------------------------------------------------


def sessions_of(actor: Actor, queryset: QuerySet[Session] | None = None) -> QuerySet[Session]:
    """The sessions the caller reaches: its own for a link, its circles' for an account."""
    sessions = Session.objects.all() if queryset is None else queryset
    if actor.link is not None:
        return sessions.filter(pk=actor.link.session_id)
    return sessions.filter(circle__members=actor.user)


def access_session(
    actor: Actor,
    session_id: int,
    *,
    need: Role = Role.VIEWER,
    queryset: QuerySet[Session] | None = None,
) -> Session:
    """The session, with its circle, if the caller reaches it and may do what `need` says."""
    require(actor, need)
    link = actor.link
    # `link_by_token` read the link's session and circle with it: no second read.
    if (
        queryset is None
        and link is not None
        and link.session_id == session_id
        and ShareLink.session.is_cached(link)
    ):
        return link.session
    if queryset is None:
        session = _session_in_reach(actor, session_id)
    else:
        session = _one(sessions_of(actor, queryset).filter(pk=session_id))
    if session is None:
        raise NotFound(NO_SESSION, id=session_id)
    return session


def _session_in_reach(actor: Actor, session_id: int) -> Session | None:
    """`sessions_of(actor, Session.objects.select_related("circle"))`'s session, read by
    hand (`tracker.rows`): nearly every read of a session runs it."""
    if actor.link is not None:
        return rows.session_with_circle(session_id, link_of=actor.link.session_id)
    return rows.session_with_circle(session_id, member=getattr(actor.user, "pk", None))


@dataclass(frozen=True)
class DealInReach:
    """A deal the caller asked for, not read yet: `deals` finds it only if the caller
    reaches it (a deal of `session_id`, or of a circle `member_id` is in, when they are
    set; with neither, none unless `anywhere`), and `missing` is the refusal when it finds
    nothing. A write on the deal hands it to the service, which reads it in the statement
    that takes the session's lock (`tracker.services.locks.session_of_deal_changed`,
    through `session_of_deal`): one query for both."""

    id: int
    missing: NotFound
    session_id: int | None = None
    member_id: int | None = None
    anywhere: bool = False  # only `by_id`: a key left unset never means "any deal"

    @classmethod
    def by_id(cls, deal_id: int) -> DealInReach:
        """A deal found by its id alone: the caller checked the reach itself."""
        return cls(deal_id, NotFound(NO_DEAL, id=deal_id), anywhere=True)

    @property
    def nowhere(self) -> bool:
        """Whether no deal can be in reach (a caller with no stored account or session)."""
        unbounded = self.session_id is None and self.member_id is None
        return unbounded and not self.anywhere or not rows.storable(Deal, self.id)

    @property
    def deals(self) -> QuerySet[Deal]:
        if self.nowhere:
            return Deal.objects.none()
        deals = Deal.objects.filter(pk=self.id)
        if self.session_id is not None:
            deals = deals.filter(session_id=self.session_id)
        if self.member_id is not None:
            deals = deals.filter(session__circle__members=self.member_id)
        return deals

    def session_of_deal(self) -> tuple[str, list[int]]:
        """`deals.values("session_id")` as SQL and its parameters, written by hand
        (`tracker.rows.deals_in_reach`): the tap's statement that locks the session is
        built a request, and the ORM took longer to build it than PostgreSQL to run it.
        tests/test_rows.py holds it to `deals` for every kind of reach."""
        deals = connection.ops.quote_name(Deal._meta.db_table)
        if self.nowhere:
            return f"SELECT t0.session_id FROM {deals} t0 WHERE 1 = 0", []
        where, params = rows.deals_in_reach(self.session_id, self.member_id)
        sql = f"SELECT t0.session_id FROM {deals} t0 WHERE t0.id = %s"
        return (f"{sql} AND {where}" if where else sql), [self.id, *params]

    def read(self) -> Deal | None:
        """The deal with its session if the caller reaches it (`deals` with
        `select_related("session")`), read by hand as `session_of_deal` is; None if not."""
        if self.nowhere:
            return None
        where, params = rows.deals_in_reach(self.session_id, self.member_id)
        found = rows.all_with(Deal, ("session",), "id", self.id, where=where, params=params)
        return found[0] if found else None


def deal_in_reach(
    actor: Actor, deal_id: int, *, need: Role = Role.VIEWER, session: Session | None = None
) -> DealInReach:
    """The deal, as a query, if the caller may do what `need` says; with `session`, only a
    deal of that session (a page opened for one session writes to that session only)."""
    require(actor, need)
    if session is not None:
        return DealInReach(deal_id, NotFound(NO_DEAL_HERE, id=deal_id), session_id=session.pk)
    missing = NotFound(NO_DEAL, id=deal_id)
    if actor.link is not None:
        return DealInReach(deal_id, missing, session_id=actor.link.session_id)
    # No stored account (no door lets one write): no key, so `nowhere`.
    return DealInReach(deal_id, missing, member_id=getattr(actor.user, "pk", None))


def access_deal(
    actor: Actor, deal_id: int, *, need: Role = Role.VIEWER, session: Session | None = None
) -> Deal:
    """The deal, with its session, if the caller reaches it (see `deal_in_reach`)."""
    reach = deal_in_reach(actor, deal_id, need=need, session=session)
    deal = reach.read()
    if deal is None:
        raise reach.missing
    if session is not None:
        deal.session = session
    return deal


def access_deal_numbered(
    actor: Actor, session: Session, number: int, *, need: Role = Role.VIEWER, ahead: bool = False
) -> Deal:
    """Deal `number` of a session the caller already reached (`access_session`).

    With `ahead` (a write a phone queued while offline, addressed by number because the
    deal may not exist yet when it is made): the number right after the session's last
    deal is a conflict, `deal_not_open` (the deal it follows is not filed: another phone
    undid or ended it), not an unknown deal; one more query, only then."""
    require(actor, need)
    deal = _one(Deal.objects.filter(session=session, number=number))
    if deal is None:
        if ahead and 1 < number == _last_number(session) + 1:
            raise Conflict(DEAL_NOT_OPEN_YET, code="deal_not_open", number=number)
        raise NotFound(NO_DEAL_NUMBER, code="deal_not_found", number=number)
    deal.session = session
    return deal


def _last_number(session: Session) -> int:
    last: int | None = Deal.objects.filter(session=session).aggregate(Max("number"))["number__max"]
    return last or 0


def access_share_link(actor: Actor, link_id: int, *, session: Session | None = None) -> ShareLink:
    """A share link of a session of the caller's circles (links are the members' to make
    and revoke); with `session`, of that session only."""
    require(actor, Role.MEMBER)
    links = ShareLink.objects.filter(pk=link_id, session__circle__members=actor.user)
    if session is not None:
        links = links.filter(session=session)
    link = _one(links)
    if link is None:
        raise NotFound(NO_SHARE_LINK, id=link_id)
    return link
