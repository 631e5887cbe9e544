"""Data migrations keep what was stored scoring as it did."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

import scoring
from tracker.models import DealEvent, LedgerLine
from tracker.records import deal_facts
from tracker.services import deal_event_record, deal_tap

BEFORE = [("tracker", "0008_idempotency_keys_stored_with_their_write")]


def migrate(targets=None):
    """Migrate to `targets`, or (None) to the latest migrations."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets or executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_cutup_beaten_stored_before_names_a_cutup_and_keeps_its_ledger(make_session, actor):
    session, p = make_session(options=scoring.Options(penalties=True))
    deal = session.deals.get()
    for event in (
        scoring.TwoBeaten(
            by=p["Ben"].pk, owner=p["Alice"].pk, beaten_with=scoring.Beater.CUTUP, red=1
        ),
        scoring.CutupBeaten(by=p["Cara"].pk, owner=p["Ben"].pk),
        scoring.CutupBeaten(by=p["Dev"].pk, owner=p["Cara"].pk),
    ):
        deal_event_record(deal_id=deal.pk, event=event, actor=actor)
    for name in ("Alice", "Ben", "Cara"):
        deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor)
    ledger = list(LedgerLine.objects.filter(deal=deal).values_list("amount", "reason"))
    try:
        migrate([("tracker", "0009_cutup_beaten_rows_say_cutup")])
        # As a cutup beaten was stored before: nothing said what beat it.
        DealEvent.objects.filter(type="cutup_beaten").update(beaten_with="")
        migrate(BEFORE)
    finally:
        migrate()

    assert list(DealEvent.objects.filter(type="cutup_beaten").values_list("beaten_with")) == [
        ("cutup",),
        ("cutup",),
    ]
    deal.refresh_from_db()
    replayed = scoring.play(deal_facts(deal)).ledger
    assert [(line.amount, line.reason.value) for line in replayed] == ledger
