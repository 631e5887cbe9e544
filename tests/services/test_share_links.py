"""Share links: made and revoked by members, each revocation naming who did it."""

import pytest

from tracker.errors import Conflict, Invalid
from tracker.models import ShareLink
from tracker.services import share_link_create, share_link_revoke

pytestmark = pytest.mark.django_db


def test_revoking_a_link_names_who_did_it(make_session, actor, user):
    session, _p = make_session()
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    share_link_revoke(link_id=link.pk, actor=actor)
    link.refresh_from_db()

    assert link.revoked_at is not None
    assert (link.revoked_by, link.revoked_via) == (user, None)
    with pytest.raises(Conflict):
        share_link_revoke(link_id=link.pk, actor=actor)


def test_a_new_link_revokes_the_old_one_of_its_role_and_names_who(make_session, actor, user):
    session, _p = make_session()
    old = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    viewer = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    new = share_link_create(session_id=session.pk, role="scorer", actor=actor)

    old.refresh_from_db()
    assert (old.revoked_by, old.revoked_at is not None) == (user, True)
    assert ShareLink.objects.get(pk=viewer.pk).revoked_at is None
    assert ShareLink.objects.get(pk=new.pk).revoked_at is None


def test_a_link_is_for_a_scorer_or_a_viewer(make_session, actor):
    session, _p = make_session()

    with pytest.raises(Invalid):
        share_link_create(session_id=session.pk, role="owner", actor=actor)
