"""The running totals standings read, kept in step with every filing and correction."""

import io

import pytest
from django.core.management import CommandError, call_command

import scoring
from tests.services.helpers import open_deal, tap_all
from tracker.services import (
    deal_correct,
    deal_end,
    deal_event_record,
    deal_undo,
)

pytestmark = pytest.mark.django_db


def test_running_totals_follow_filing_undo_and_correction(make_session, actor):
    from tracker.selectors import session_standings, standings_by_aggregate

    session, p = make_session(options=scoring.Options(penalties=True))
    deal = open_deal(session)
    two = scoring.TwoBeaten(
        by=p["Ben"].pk, owner=p["Cara"].pk, beaten_with=scoring.Beater.BOMB, red=1
    )
    deal_event_record(deal_id=deal.pk, event=two, actor=actor)
    tap_all(deal, p, ["Alice", "Cara", "Ben"], actor)
    assert session_standings(session) == standings_by_aggregate(session)

    deal_undo(deal_id=deal.pk, actor=actor)
    assert session_standings(session) == standings_by_aggregate(session)
    assert {row.name: row.points for row in session_standings(session)} == dict.fromkeys(
        ["Alice", "Ben", "Cara", "Dev"], 0
    )

    tap_all(deal, p, ["Dev"], actor)
    deal_correct(deal_id=deal.pk, taps=[p["Ben"].pk, p["Alice"].pk, p["Dev"].pk], actor=actor)
    deal_end(deal_id=open_deal(session).pk, actor=actor)

    assert session_standings(session) == standings_by_aggregate(session)
    assert [(row.name, row.points, row.twos_beaten_made) for row in session_standings(session)] == [
        ("Ben", 3, 1),
        ("Alice", 2, 0),
        ("Dev", 1, 0),
        ("Cara", 0, 0),
    ]


def test_rebuild_standings_command_restores_lost_running_totals(make_session, actor):
    from tracker.models import StandingTally
    from tracker.selectors import session_standings, standings_by_aggregate

    session, p = make_session()
    tap_all(open_deal(session), p, ["Alice", "Cara", "Ben"], actor)
    tap_all(open_deal(session), p, ["Dev", "Alice", "Cara"], actor)
    expected = standings_by_aggregate(session)
    StandingTally.objects.all().delete()
    out = io.StringIO()

    call_command("rebuild_standings", "--session", str(session.pk), stdout=out)

    assert session_standings(session) == expected
    assert {row.name: row.points for row in expected} == {"Alice": 5, "Cara": 3, "Dev": 3, "Ben": 1}
    assert out.getvalue() == "Rebuilt the standings of 1 session.\n"


def test_rebuild_standings_names_a_session_that_does_not_exist(make_session):
    make_session()

    with pytest.raises(CommandError, match="There is no session 999."):
        call_command("rebuild_standings", "--session", "999")
