"""An invite token is a secret like a share token: the request log hides it."""

import pytest

from tracker.services import invite_create

pytestmark = pytest.mark.django_db


def test_the_request_log_hides_an_invite_token(client, circle, actor, request_log):
    invite = invite_create(circle=circle, actor=actor)

    client.get(f"/join/{invite.token}/")

    assert [record.fields["path"] for record in request_log] == ["/join/<token>/"]
    assert invite.token not in repr([vars(record) for record in request_log])
