"""An invite token is a secret like a share token: the request log hides it."""

import logging

import pytest

from tracker.services import invite_create

pytestmark = pytest.mark.django_db


class Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_the_request_log_hides_an_invite_token(client, circle, actor):
    invite = invite_create(circle=circle, actor=actor)
    keep = Keep()
    logger = logging.getLogger("squarescores.requests")
    logger.addHandler(keep)
    try:
        client.get(f"/join/{invite.token}/")
    finally:
        logger.removeHandler(keep)

    assert [record.fields["path"] for record in keep.records] == ["/join/<token>/"]
    assert invite.token not in repr([vars(record) for record in keep.records])
