"""Deals: list, detail, taps, undo, events, End match and corrections."""

import pytest

from tracker.models import Correction, Deal, DealEvent, Tap

pytestmark = pytest.mark.django_db


def test_deal_detail_shows_the_whole_deal(start, api):
    table = start(options={"penalties": True})
    a, b, c, d = (table.p[name] for name in ("Alice", "Ben", "Cara", "Dev"))
    deal = table.deal
    table.event(deal, type="two_beaten", by=b, owner=c, **{"with": "bomb"}, black=1)
    table.tap(deal, "Alice", "Cara", "Ben")

    body = api.get(f"/api/deals/{deal}/").json()

    event = DealEvent.objects.get()
    taps = list(Tap.objects.order_by("seq"))
    assert body == {
        "id": deal,
        "session": table.id,
        "number": 1,
        "status": "filed",
        "why": "The scoring places are filled and the loser is known.",
        "dealer": None,
        "leader": None,
        "winner": a,
        "loser": d,
        "next_deal": Deal.objects.get(number=2).pk,
        "players": [
            {"player": a, "seat": 1, "place": 1, "points": 3},
            {"player": b, "seat": 2, "place": 3, "points": 1},
            {"player": c, "seat": 3, "place": 2, "points": 2},
            {"player": d, "seat": 4, "place": 4, "points": 0},
        ],
        "taps": [
            {"id": taps[0].pk, "seq": 2, "player": a, "place": 1, "loser": False, "not_played": []},
            {"id": taps[1].pk, "seq": 3, "player": c, "place": 2, "loser": False, "not_played": []},
            {"id": taps[2].pk, "seq": 4, "player": b, "place": 3, "loser": False, "not_played": []},
        ],
        "events": [
            {
                "id": event.pk,
                "seq": 1,
                "type": "two_beaten",
                "by": b,
                "owner": c,
                "with": "bomb",
                "black": 1,
                "red": 0,
            }
        ],
        "points": {str(a): 3, str(b): 1, str(c): 2, str(d): 0},
        "ledger": [
            {"from": c, "to": b, "amount": "2.00", "reason": "two_beaten"},
            {"from": d, "to": a, "amount": "1.00", "reason": "loser_pays"},
            {"from": d, "to": b, "amount": "1.00", "reason": "loser_pays"},
            {"from": d, "to": c, "amount": "1.00", "reason": "loser_pays"},
        ],
        "trading": [],
        "opened_at": body["opened_at"],
        "closed_at": body["closed_at"],
    }
    assert body["closed_at"] is not None


def test_deal_list_is_newest_first_and_paginated(start, api):
    table = start()
    first = table.deal
    table.tap(first, "Alice", "Cara", "Ben")
    second = table.deal

    response = api.get(f"/api/sessions/{table.id}/deals/")

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 2
    assert [(deal["id"], deal["number"], deal["status"]) for deal in body["results"]] == [
        (second, 2, "open"),
        (first, 1, "filed"),
    ]
    assert body["results"][1]["players"][0] == {
        "player": table.p["Alice"],
        "seat": 1,
        "place": 1,
        "points": 3,
    }
    paged = api.get(f"/api/sessions/{table.id}/deals/?page_size=1&page=2").json()
    assert [deal["id"] for deal in paged["results"]] == [first]


def test_tap_with_got_to_get_in_charges_the_players_who_had_not_played(start, api):
    table = start(options={"got_to_get_in": True})
    deal = table.deal

    response = api.post(
        f"/api/deals/{deal}/taps/",
        {"player": table.p["Alice"], "not_played": [table.p["Dev"], table.p["Ben"]]},
    )

    assert response.status_code == 201
    body = response.json()
    assert body["taps"][0]["not_played"] == sorted([table.p["Dev"], table.p["Ben"]])
    assert table.ledger(body) == [  # in player order, as the deal replays them
        ("Ben", "Alice", "2.00", "got_to_get_in"),
        ("Dev", "Alice", "2.00", "got_to_get_in"),
    ]


def test_loser_tap_files_a_five_player_deal(start, api):
    table = start(players=("A", "B", "C", "D", "E"))
    deal = table.deal
    table.tap(deal, "A", "B", "C")

    response = api.post(f"/api/deals/{deal}/taps/", {"player": table.p["E"], "loser": True})

    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "filed"
    assert body["loser"] == table.p["E"]
    assert table.named({p["player"]: p["place"] for p in body["players"]}) == {
        "A": 1,
        "B": 2,
        "C": 3,
        "D": None,
        "E": 5,
    }
    assert [line["from"] for line in body["ledger"]] == [table.p["E"]] * 4


def test_undo_takes_back_the_last_tap_and_keeps_it_as_history(start, api):
    table = start()
    deal = table.deal
    table.tap(deal, "Alice", "Cara")

    response = api.post(f"/api/deals/{deal}/undo/")

    assert response.status_code == 200
    assert [tap["player"] for tap in response.json()["taps"]] == [table.p["Alice"]]
    assert Tap.objects.filter(deal_id=deal).count() == 2
    assert Tap.objects.get(player_id=table.p["Cara"]).undone_at is not None


def test_undo_on_the_empty_next_deal_reopens_the_filed_one(start, api):
    table = start()
    deal = table.deal
    following = table.tap(deal, "Alice", "Cara", "Ben")["next_deal"]

    response = api.post(f"/api/deals/{following}/undo/")

    assert response.status_code == 200
    body = response.json()
    assert (body["id"], body["status"], body["next_deal"], body["ledger"]) == (
        deal,
        "open",
        None,
        [],
    )
    assert not Deal.objects.filter(pk=following).exists()


def test_undo_with_nothing_recorded_is_refused(start, api):
    table = start()

    response = api.post(f"/api/deals/{table.deal}/undo/")

    assert response.status_code == 400
    assert response.json() == {"code": "nothing_to_undo", "detail": "Nothing to undo on this deal."}


def test_events_are_listed_in_the_order_recorded(start, api):
    table = start(format="winner_takes_all", stake_rule="pro_play", options={"guaransheed": True})
    a, b, c = (table.p[name] for name in ("Alice", "Ben", "Cara"))
    deal = table.deal
    table.event(deal, type="guaransheed", player=a, blind=True, approved=True)
    table.event(deal, type="two_beaten", by=b, owner=c, **{"with": "cutup"}, red=2)
    table.event(deal, type="cutup_beaten", by=a, owner=b)
    table.tap(deal, "Alice")
    table.event(deal, type="hand", player=c, cards=9, black_twos=1)

    response = api.get(f"/api/deals/{deal}/events/")

    assert response.status_code == 200
    events = response.json()
    assert [{k: v for k, v in event.items() if k != "id"} for event in events] == [
        {"seq": 1, "type": "guaransheed", "player": a, "blind": True},
        {
            "seq": 2,
            "type": "two_beaten",
            "by": b,
            "owner": c,
            "with": "cutup",
            "black": 0,
            "red": 2,
        },
        {"seq": 3, "type": "cutup_beaten", "by": a, "owner": b, "with": "cutup"},
        {
            "seq": 5,
            "type": "hand",
            "player": c,
            "cards": 9,
            "black_twos": 1,
            "red_twos": 0,
            "cutups": 0,
            "bombs": 0,
        },
    ]


def test_instant_win_files_the_deal(start, api):
    table = start(options={"instant_wins": True})
    deal = table.deal

    body = table.event(deal, type="instant_win", player=table.p["Cara"], kind="dragon")

    assert body["status"] == "filed"
    assert body["why"] == "Cara won outright."
    assert table.named(body["points"]) == {"Alice": 0, "Ben": 0, "Cara": 3, "Dev": 0}
    assert [line["reason"] for line in body["ledger"]] == ["instant_win"] * 3


def test_instant_win_five_consecutive_pairs_with_its_option(start, api):
    table = start(options={"instant_wins": True, "five_consecutive_pairs": True})
    assert table.session["options"]["five_consecutive_pairs"] is True
    deal = table.deal

    body = table.event(
        deal, type="instant_win", player=table.p["Ben"], kind="five_consecutive_pairs"
    )

    assert body["status"] == "filed"
    assert body["events"][0]["kind"] == "five_consecutive_pairs"
    assert table.named(body["points"]) == {"Alice": 0, "Ben": 3, "Cara": 0, "Dev": 0}


def test_instant_win_five_consecutive_pairs_without_its_option_is_refused(start, api):
    table = start(options={"instant_wins": True})

    response = api.post(
        f"/api/deals/{table.deal}/events/",
        {"type": "instant_win", "player": table.p["Ben"], "kind": "five_consecutive_pairs"},
    )

    assert response.status_code == 400
    assert response.json()["detail"] == (
        "5 consecutive pairs is not an instant win at this session: its option is off."
    )


def test_instant_win_at_a_two_pack_deal_is_refused_with_why(start, api):
    table = start(options={"instant_wins": True})
    seated = [*table.p.values(), "Eve"]
    assert api.put(f"/api/sessions/{table.id}/players/", {"players": seated}).status_code == 200

    response = api.post(
        f"/api/deals/{table.deal}/events/",
        {"type": "instant_win", "player": table.p["Cara"], "kind": "four_twos"},
    )

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "detail": "With 5 to 8 players two packs are dealt, and two packs have no instant wins.",
    }
    assert DealEvent.objects.count() == 0


def test_hand_of_a_player_who_never_played_holds_every_card(start, api):
    table = start(stake_rule="pro_play", format="winner_takes_all", options={"got_to_get_in": True})
    deal = table.deal
    tapped = api.post(
        f"/api/deals/{deal}/taps/", {"player": table.p["Alice"], "not_played": [table.p["Ben"]]}
    )
    assert tapped.status_code == 201

    response = api.post(
        f"/api/deals/{deal}/events/", {"type": "hand", "player": table.p["Ben"], "cards": 5}
    )

    assert response.status_code == 400
    assert response.json()["detail"] == (
        "Ben had not played a card when play ended, so their hand holds all 13 cards."
    )
    table.event(deal, type="hand", player=table.p["Ben"], cards=13)
    table.event(deal, type="hand", player=table.p["Cara"], cards=2)
    body = table.event(deal, type="hand", player=table.p["Dev"], cards=1)
    assert body["status"] == "filed"
    assert table.ledger(body)[:2] == [
        ("Ben", "Alice", "2.00", "got_to_get_in"),
        ("Ben", "Alice", "2.00", "pro_play_win"),
    ]


def test_cutup_beaten_with_a_bomb_is_not_doubled_again(start, api):
    table = start(format="winner_takes_all", stake_rule="pro_play")
    a, b, c, d = (table.p[name] for name in ("Alice", "Ben", "Cara", "Dev"))
    deal = table.deal
    table.event(deal, type="two_beaten", by=b, owner=a, **{"with": "cutup"}, red=1)

    body = table.event(deal, type="cutup_beaten", by=c, owner=b, **{"with": "bomb"})
    response = api.post(f"/api/deals/{deal}/events/", {"type": "cutup_beaten", "by": d, "owner": c})

    assert body["events"][-1] == {
        "id": body["events"][-1]["id"],
        "seq": 2,
        "type": "cutup_beaten",
        "by": c,
        "owner": b,
        "with": "bomb",
    }
    assert table.ledger(body) == [
        ("Alice", "Ben", "1.50", "two_beaten"),
        ("Ben", "Cara", "3.00", "cutup_beaten"),
    ]
    assert response.status_code == 400
    assert response.json()["detail"] == (
        "Cara's last play that earned was a bomb, and beating a bomb earns nothing more."
    )


def test_cutup_beaten_with_something_else_is_refused(start, api):
    table = start(format="winner_takes_all", stake_rule="pro_play")
    b, c = table.p["Ben"], table.p["Cara"]
    event = {"type": "cutup_beaten", "by": c, "owner": b, "with": "dragon"}

    response = api.post(f"/api/deals/{table.deal}/events/", event)

    assert response.status_code == 400
    assert response.json()["detail"] == 'with: "dragon" is not a valid choice.'


def test_guaransheed_not_approved_is_refused(start, api):
    table = start(options={"guaransheed": True})

    response = api.post(
        f"/api/deals/{table.deal}/events/",
        {"type": "guaransheed", "player": table.p["Alice"], "approved": False},
    )

    assert response.status_code == 400
    assert response.json()["detail"] == (
        "approved: A Guaransheed needs everyone at the table to approve it: ask them, "
        "then send approved: true."
    )
    assert DealEvent.objects.count() == 0


def test_hand_after_filing_under_loser_pays_is_a_correction(start, api):
    table = start(options={"penalties": True})
    deal = table.deal
    table.tap(deal, "Alice", "Cara", "Ben")

    body = table.event(deal, type="hand", player=table.p["Dev"], cards=5, bombs=1)

    assert body["status"] == "filed"
    assert table.ledger(body)[-1] == ("Dev", "Alice", "3.00", "unused_bomb")
    assert Correction.objects.get().reason == "Hand recorded after filing"


def test_event_delete_on_an_open_deal_undoes_it(start, api):
    table = start(options={"penalties": True})
    deal = table.deal
    body = table.event(
        deal,
        type="two_beaten",
        by=table.p["Ben"],
        owner=table.p["Cara"],
        **{"with": "cutup"},
        black=1,
    )
    event = body["events"][0]["id"]

    response = api.delete(f"/api/deals/{deal}/events/{event}/")

    assert response.status_code == 200
    assert (response.json()["events"], response.json()["ledger"]) == ([], [])
    assert DealEvent.objects.get().undone_at is not None
    again = api.delete(f"/api/deals/{deal}/events/{event}/")
    assert again.status_code == 409
    assert again.json() == {"code": "event_undone", "detail": "That event was already taken back."}


def test_event_delete_on_a_filed_deal_is_a_correction(start, api):
    table = start(options={"penalties": True})
    deal = table.deal
    body = table.event(
        deal,
        type="two_beaten",
        by=table.p["Ben"],
        owner=table.p["Cara"],
        **{"with": "cutup"},
        black=1,
    )
    table.tap(deal, "Alice", "Cara", "Ben")

    response = api.delete(f"/api/deals/{deal}/events/{body['events'][0]['id']}/")

    assert response.status_code == 200
    assert [line["reason"] for line in response.json()["ledger"]] == ["loser_pays"] * 3
    assert Correction.objects.get().reason == "Event removed"


def test_event_delete_of_an_unknown_event_is_not_found(start, api):
    table = start()

    response = api.delete(f"/api/deals/{table.deal}/events/999/")

    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "detail": "There is no event 999 on deal 1."}


def test_end_match_closes_the_deal_with_its_taps_and_ends_the_session(start, api):
    table = start()
    deal = table.deal
    table.tap(deal, "Alice")

    response = api.post(f"/api/deals/{deal}/end/")

    assert response.status_code == 200
    body = response.json()
    assert (body["status"], body["why"], body["next_deal"]) == (
        "ended",
        "Ended by End match.",
        None,
    )
    assert table.named(body["points"]) == {"Alice": 3, "Ben": 0, "Cara": 0, "Dev": 0}
    assert api.get(f"/api/sessions/{table.id}/").json()["ended_at"] is not None
    again = api.post(f"/api/deals/{deal}/end/")
    assert again.status_code == 409
    assert again.json() == {
        "code": "deal_closed",
        "detail": "This deal was already ended with End match.",
    }


def test_correction_reorders_the_taps_and_is_recorded(start, api, user):
    table = start()
    deal = table.deal
    table.tap(deal, "Alice", "Cara", "Ben")
    order = [table.p[name] for name in ("Cara", "Alice", "Dev")]

    response = api.post(
        f"/api/deals/{deal}/correction/", {"taps": order, "reason": "Cara went out first"}
    )

    assert response.status_code == 200
    body = response.json()
    assert table.named(body["points"]) == {"Alice": 2, "Ben": 0, "Cara": 3, "Dev": 1}
    assert table.ledger(body) == [
        ("Ben", "Alice", "1.00", "loser_pays"),
        ("Ben", "Cara", "1.00", "loser_pays"),
        ("Ben", "Dev", "1.00", "loser_pays"),
    ]
    correction = Correction.objects.get()
    assert (correction.reason, correction.made_by) == ("Cara went out first", user)
    assert correction.before["points"] == {
        str(table.p["Alice"]): 3,
        str(table.p["Ben"]): 1,
        str(table.p["Cara"]): 2,
        str(table.p["Dev"]): 0,
    }
    following = api.get(f"/api/deals/{body['next_deal']}/").json()
    assert (following["leader"], following["dealer"]) == (table.p["Cara"], table.p["Ben"])


def test_correction_keeps_the_2s_beaten_in_play(start, api):
    """The 2s beaten during play happened before the deal filed, whatever the new order."""
    table = start(options={"penalties": True})
    deal = table.deal
    b, c = table.p["Ben"], table.p["Cara"]
    table.event(deal, type="two_beaten", by=b, owner=c, **{"with": "cutup"}, black=1)
    table.event(deal, type="cutup_beaten", by=c, owner=b)
    table.tap(deal, "Alice", "Cara", "Ben")

    response = api.post(
        f"/api/deals/{deal}/correction/",
        {"taps": [table.p[name] for name in ("Cara", "Alice", "Ben")], "reason": "Cara first"},
    )

    assert response.status_code == 200
    assert table.ledger(response.json()) == [
        ("Cara", "Ben", "1.00", "two_beaten"),
        ("Ben", "Cara", "2.00", "cutup_beaten"),
        ("Dev", "Alice", "1.00", "loser_pays"),
        ("Dev", "Ben", "1.00", "loser_pays"),
        ("Dev", "Cara", "1.00", "loser_pays"),
    ]
    assert table.named(response.json()["points"]) == {"Alice": 2, "Ben": 1, "Cara": 3, "Dev": 0}


def test_event_delete_on_a_filed_deal_keeps_the_other_2s_beaten(start, api):
    table = start(options={"penalties": True})
    deal = table.deal
    b, c, d = table.p["Ben"], table.p["Cara"], table.p["Dev"]
    first = table.event(deal, type="two_beaten", by=b, owner=c, **{"with": "bomb"}, red=1)
    table.event(deal, type="two_beaten", by=c, owner=d, **{"with": "cutup"}, black=1)
    table.tap(deal, "Alice", "Cara", "Ben")

    response = api.delete(f"/api/deals/{deal}/events/{first['events'][0]['id']}/")

    assert response.status_code == 200
    assert table.ledger(response.json())[0] == ("Dev", "Cara", "1.00", "two_beaten")
    assert [event["owner"] for event in response.json()["events"]] == [d]


def test_correction_with_a_loser_tap(start, api):
    table = start(players=("A", "B", "C", "D", "E"))
    deal = table.deal
    table.tap(deal, "A", "B", "C", "D")

    response = api.post(
        f"/api/deals/{deal}/correction/",
        {"taps": [table.p[n] for n in ("B", "A", "C")], "loser": table.p["D"], "reason": ""},
    )

    assert response.status_code == 200
    assert response.json()["loser"] == table.p["D"]


def test_correction_can_add_an_event(start, api):
    table = start(options={"penalties": True})
    deal = table.deal
    table.tap(deal, "Alice", "Cara", "Ben")

    response = api.post(
        f"/api/deals/{deal}/correction/",
        {"add_events": [{"type": "hand", "player": table.p["Dev"], "cards": 3, "red_twos": 1}]},
    )

    assert response.status_code == 200
    assert table.ledger(response.json())[-1] == ("Dev", "Alice", "2.00", "unused_red_two")


def test_correction_of_an_open_deal_is_a_conflict(start, api):
    table = start()

    response = api.post(f"/api/deals/{table.deal}/correction/", {"taps": []})

    assert response.status_code == 409
    assert response.json() == {
        "code": "conflict",
        "detail": "This deal is still open: use undo, or record what is missing.",
    }


def test_correction_that_leaves_the_deal_unfinished_is_refused(start, api):
    table = start()
    deal = table.deal
    table.tap(deal, "Alice", "Cara", "Ben")

    response = api.post(f"/api/deals/{deal}/correction/", {"taps": [table.p["Alice"]]})

    assert response.status_code == 400
    assert response.json() == {
        "code": "invalid",
        "detail": "That correction leaves the deal unfinished: Waiting for 2nd place.",
    }


@pytest.mark.parametrize(
    "path", ["/api/deals/abc/", "/api/sessions/-1/standings/", "/api/nowhere/"]
)
def test_unknown_api_address_is_a_json_404(api, path):
    response = api.get(path)

    assert (response.status_code, response.json()) == (
        404,
        {
            "code": "not_found",
            "detail": "There is nothing at this address; check the id in the URL.",
        },
    )


def test_the_answer_to_a_write_is_the_deal_as_read_back(start, api):
    """A tap or an event answers with what the write knew, without reading the deal back;
    it must be exactly what a read shows, through every kind of record and the filing."""
    table = start(options={"got_to_get_in": True, "penalties": True})
    deal = table.deal
    writes = [
        ("events", {"type": "two_beaten", "by": "Ben", "owner": "Dev", "with": "bomb", "red": 1}),
        ("taps", {"player": "Alice", "not_played": ["Dev", "Cara"]}),
        ("taps", {"player": "Cara"}),
        ("taps", {"player": "Ben"}),  # files the deal and opens the next
    ]

    for kind, body in writes:
        ids = {
            key: [table.p[name] for name in value] if isinstance(value, list) else value
            for key, value in body.items()
        }
        ids.update({key: table.p[ids[key]] for key in ("by", "owner", "player") if key in ids})
        answer = api.post(f"/api/deals/{deal}/{kind}/", ids)

        assert answer.status_code == 201, answer.json()
        assert answer.json() == api.get(f"/api/deals/{deal}/").json()
    assert answer.json()["status"] == "filed"
    assert answer.json()["next_deal"] is not None


def test_a_correction_naming_only_the_loser_changes_the_loser(start):
    table = start(players=("Alice", "Ben", "Cara", "Dev", "Eve"))
    deal = table.deal
    table.tap(deal, "Eve", "Alice", "Cara")
    response = table.api.post(f"/api/deals/{deal}/taps/", {"player": table.p["Ben"], "loser": True})
    assert response.json()["loser"] == table.p["Ben"]

    corrected = table.api.post(f"/api/deals/{deal}/correction/", {"loser": table.p["Dev"]})

    assert corrected.status_code == 200
    assert corrected.json()["loser"] == table.p["Dev"]
    assert {line["from"] for line in corrected.json()["ledger"]} == {table.p["Dev"]}


def test_a_correction_naming_a_loser_who_cannot_be_is_refused(start):
    table = start()
    deal = table.deal
    table.tap(deal, "Alice", "Cara", "Ben")

    refused = table.api.post(f"/api/deals/{deal}/correction/", {"loser": table.p["Ben"]})

    assert refused.status_code == 400
    assert refused.json()["detail"].startswith("That correction does not add up")
    assert table.api.get(f"/api/deals/{deal}/").json()["loser"] == table.p["Dev"]
