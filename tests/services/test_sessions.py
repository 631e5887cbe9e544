"""Starting a session: the rules checked before anything is stored."""

import pytest

import scoring
from tracker.errors import Invalid
from tracker.models import Session
from tracker.services import (
    session_create,
)

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"stake": "0"}, "more than 0"),
        ({"stake": "1.234"}, "2 decimal places"),
        ({"stake": "1000000.01"}, "at most 1,000,000"),
        ({"stake": "abc"}, "a number"),
        ({"currency": "US"}, "3-letter code"),
        ({"format": "podium", "stake_rule": "per_card"}, "winner takes all"),
        ({"stake_rule": "none", "options": scoring.Options(penalties=True)}, "no money moves"),
        ({"options": scoring.Options(instant_wins=True, trading=True)}, "cannot be on together"),
        ({"players": ["Alice"]}, "2 to 8 players"),
        ({"players": ["Alice", "alice"]}, "seated twice"),
        ({"hand_size": 17}, "13 cards"),
    ],
)
def test_session_create_refuses_bad_rules(circle, actor, overrides, message):
    arguments = {"players": ["Alice", "Ben", "Cara", "Dev"], **overrides}

    with pytest.raises(Invalid, match=message):
        session_create(circle=circle, name="Bad", actor=actor, **arguments)

    assert Session.objects.count() == 0
