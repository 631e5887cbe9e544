"""The standings' answer is built by hand (`tracker.api.standings.standings_data`, issue 15, session
14): it is `StandingsOut({"rows": rows}).data` to the byte, for the standings a table
makes — players who never finished a deal (no average place), losses and wins at a
fractional stake, Vietnamese names — in both languages.
"""

from __future__ import annotations

import json
import random

import pytest
from django.utils import translation

import scoring
from tests.api.test_deal_data import OPTIONS, play_at_random
from tracker.api.standings import StandingsOut, standings_data
from tracker.selectors import session_standings

pytestmark = pytest.mark.django_db

TWO_PACKS = scoring.Options(got_to_get_in=True, guaransheed=True, penalties=True)


def one_answer(session) -> None:
    rows = session_standings(session)
    by_hand, by_drf = standings_data(rows), StandingsOut({"rows": rows}).data
    assert by_hand == by_drf
    assert json.dumps(by_hand, sort_keys=True) == json.dumps(by_drf, sort_keys=True)
    assert list(by_hand) == list(by_drf)
    for hand_row, drf_row in zip(by_hand["rows"], by_drf["rows"], strict=True):
        assert list(hand_row) == list(drf_row)  # the same keys in the same order


def test_a_new_session_answers_as_the_serializer_does(make_session):
    session, _ = make_session()
    one_answer(session)
    assert all(
        row["average_place"] is None for row in standings_data(session_standings(session))["rows"]
    )


@pytest.mark.parametrize("seed", range(4))
def test_standings_a_table_makes_answer_as_the_serializer_does(make_session, actor, seed):
    chance = random.Random(seed)
    names = ("Nguyễn Thị Phương Thảo Hoàng Lê Minh Kh", "Ben", "Cara", "Dev", "Én", "Phúc")
    seated = chance.choice([4, 5, 6])
    session, players = make_session(
        players=names[:seated],
        options=OPTIONS if seated == 4 else TWO_PACKS,
        stake=chance.choice(["1.00", "2.50", "0.75", "0.25"]),
    )
    for writes in (3, 20, 60):
        play_at_random(session, players, actor, chance, writes=writes)
        for language in ("en", "vi"):
            with translation.override(language):
                one_answer(session)
    rows = session_standings(session)
    assert any(row.average_place is not None for row in rows)
    assert any(row.net < 0 for row in rows)
