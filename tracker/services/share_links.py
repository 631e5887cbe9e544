"""Share links: a scorer or viewer link for a session, and revoking one (SPEC 7)."""

from __future__ import annotations

import secrets

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from tracker.access import Actor
from tracker.errors import Conflict, Invalid, NotFound
from tracker.models import ShareLink
from tracker.services.locks import access_moved, locked_session

NO_LINK = gettext_noop("There is no share link %(id)s.")


@transaction.atomic
def share_link_create(*, session_id: int, role: str, actor: Actor) -> ShareLink:
    """A new link for the session. A session has one scorer and one viewer link at a
    time: a new link revokes the active link of its role, naming who did."""
    if role not in ShareLink.Role.values:
        raise Invalid(gettext_noop('A share link is for a "scorer" or a "viewer".'))
    session = locked_session(session_id)
    if session.share_links.filter(role=role, revoked_at__isnull=True).update(
        revoked_at=timezone.now(), **actor.fields("revoked")
    ):
        access_moved(session.pk)  # the old link's pages hear no more
    return ShareLink.objects.create(
        session=session, role=role, token=secrets.token_urlsafe(32), created_by=actor.user
    )


@transaction.atomic
def share_link_revoke(*, link_id: int, actor: Actor) -> ShareLink:
    """Stop a link working; the row stays, with when it was revoked and by whom. The
    pages following the session by it hear no more, at once."""
    # The session's lock first, as every write takes it (`tracker.services.locks`).
    session_id = ShareLink.objects.filter(pk=link_id).values_list("session_id", flat=True).first()
    if session_id is None:
        raise NotFound(NO_LINK, id=link_id)
    locked_session(session_id)
    link = ShareLink.objects.select_for_update().filter(pk=link_id).first()
    if link is None:  # deleted in the admin meanwhile
        raise NotFound(NO_LINK, id=link_id)
    if link.revoked_at is not None:
        raise Conflict(gettext_noop("This share link is already revoked."), code="link_revoked")
    link.revoked_at = timezone.now()
    link.revoked_by, link.revoked_via = actor.user, actor.link
    link.save(update_fields=["revoked_at", "revoked_by", "revoked_via"])
    access_moved(session_id)
    return link
