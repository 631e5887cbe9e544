"""Real concurrency on PostgreSQL: many phones at once (SPEC 8).

Each thread has its own client and database connection (closed when it ends); a barrier
releases them together.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection, transaction

from tests.api.conftest import at_once, post
from tracker.access import Actor, access_player
from tracker.errors import NotFound
from tracker.models import Deal, IdempotencyKey, LedgerLine, Tap
from tracker.services import member_remove, player_claim, player_create

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_sixteen_phones_tapping_one_deal_file_it_once(start, token):
    """Eight players, loser pays: the 7th distinct player out files the deal (the last one
    left is the loser). 16 phones tap, each player twice, all at once."""
    table = start(players=[f"P{seat}" for seat in range(1, 9)])
    deal = table.deal
    players = list(table.p.values())

    results = at_once(
        [post(token, f"/api/deals/{deal}/taps/", {"player": players[i % 8]}) for i in range(16)]
    )

    statuses = Counter(status for status, _ in results)
    assert set(statuses) <= {201, 400, 409}, results
    assert statuses[201] == 7
    accepted = sorted(body["taps"][-1]["player"] for status, body in results if status == 201)
    live = Tap.objects.filter(deal_id=deal, undone_at__isnull=True)
    assert sorted(live.values_list("player_id", flat=True)) == accepted  # no lost tap
    assert sorted(live.values_list("place", flat=True)) == [1, 2, 3, 4, 5, 6, 7]
    assert len(set(accepted)) == 7
    session_deals = Deal.objects.filter(session_id=table.id)
    assert list(session_deals.order_by("number").values_list("number", "status")) == [
        (1, "filed"),
        (2, "open"),
    ]
    assert LedgerLine.objects.filter(deal_id=deal).count() == 7  # the loser pays each once
    filed = [body for status, body in results if status == 201 and body["status"] == "filed"]
    assert len(filed) == 1


def test_one_tap_replayed_twenty_times_at_once_is_applied_once(start, token):
    table = start()
    deal = table.deal
    tap = post(
        token, f"/api/deals/{deal}/taps/", {"player": table.p["Alice"]}, HTTP_IDEMPOTENCY_KEY="k1"
    )

    results = at_once([tap] * 20)

    # Each duplicate waits for the first and answers as it did.
    assert {status for status, _ in results} == {201}, results
    bodies = [body for _, body in results]
    assert all(body == bodies[0] for body in bodies)
    assert Tap.objects.filter(deal_id=deal).count() == 1
    assert tap() == (201, bodies[0])
    assert IdempotencyKey.objects.get(key="k1").status_code == 201


def test_undo_racing_the_tap_that_files_never_deadlocks(start, token):
    """Undo locks the session, then the deal; a filing tap holds the deal and then inserts
    rows that reference the session. Neither may end in a 500."""
    for _round in range(8):
        table = start()
        deal = table.deal
        table.tap(deal, "Alice", "Cara")

        results = at_once(
            [
                post(token, f"/api/deals/{deal}/taps/", {"player": table.p["Ben"]}),
                post(token, f"/api/deals/{deal}/undo/"),
            ]
        )

        assert [status for status, _ in results] == [201, 200], results
        assert Deal.objects.filter(session_id=table.id, status="open").count() == 1


def test_end_match_racing_a_tap_answers_both_cleanly(start, token):
    for _round in range(8):
        table = start()
        deal = table.deal
        table.tap(deal, "Alice", "Cara")

        results = at_once(
            [
                post(token, f"/api/deals/{deal}/taps/", {"player": table.p["Ben"]}),
                post(token, f"/api/sessions/{table.id}/end/"),
            ]
        )

        statuses = sorted(status for status, _ in results)
        assert statuses in ([200, 201], [201, 409], [200, 409]), results
        assert Deal.objects.filter(session_id=table.id, status="open").count() <= 1


def test_a_claim_that_read_the_membership_before_a_removal_links_nobody(
    circle, actor, django_user_model
):
    """The member says "this is me" while the owner removes them: the claim has read the
    membership (as the API's door does) when the removal commits. It must not link the
    player to someone no longer in the circle after the removal's clean-up ran."""
    friend = django_user_model.objects.create_user(username="friend", password="x")
    circle.members.add(friend)
    player = player_create(circle=circle, name="Fred")
    read, removed = threading.Event(), threading.Event()
    outcome: dict[str, str] = {}

    def claim() -> None:
        try:
            with transaction.atomic():
                access_player(Actor(user=friend), player.pk)  # the door's check
                read.set()
                assert removed.wait(10)
                player_claim(player=player, actor=Actor(user=friend))
            outcome["claim"] = "linked"
        except NotFound:
            outcome["claim"] = "refused"
        finally:
            connection.close()

    thread = threading.Thread(target=claim)
    thread.start()
    assert read.wait(10)
    member_remove(circle=circle, user_id=friend.pk, actor=actor)
    removed.set()
    thread.join(20)

    player.refresh_from_db()
    assert (outcome, player.user_id) == ({"claim": "refused"}, None)
