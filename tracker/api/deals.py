"""Deals in the API: read one, tap, undo, record and remove events, End match, correct.

The writes a phone may make offline (tap, undo, record an event) are also reachable by
the session and the deal's number (`/sessions/{id}/deals/{number}/...`): a write queued
while offline may be for a deal the server has not opened yet. Same body, same answer,
same gate."""

from __future__ import annotations

from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from tracker import answers, selectors, services
from tracker.access import (
    DealInReach,
    Role,
    access_deal,
    access_deal_numbered,
    access_session,
    deal_in_reach,
)
from tracker.api import serializers as io
from tracker.api.base import ApiView, gated
from tracker.api.events import EventListSchema, EventSchema, event_data, parse_event
from tracker.api.schema import reads, watched, writes
from tracker.models import Deal
from tracker.records import DealState


def deal_out(state: DealState, code: int = status.HTTP_200_OK) -> Response:
    return Response(io.deal_data(state), status=code)


class DealDetailView(ApiView):
    need = {"GET": Role.VIEWER}
    watches = "deal"
    # An open deal changes with every tap: kept by the version. A closed one changes only
    # with what moves the rows' counter too (its filing undone, a correction, a name).
    kept_by = (answers.ROWS, answers.VERSION)

    @watched(io.DealOut, summary="A deal: taps, events, points and ledger")
    def get(self, request: Request, pk: int) -> Response:
        deal = self.watched_deal(pk)
        return self.fresh(
            deal.session,
            lambda: deal_out(selectors.deal_state(deal)),
            counter=answers.VERSION if deal.is_open else answers.ROWS,
        )


class DealWriteView(ApiView):
    """A write on one deal, found by its id (`deals/{pk}/...`); the numbered subclasses
    find it by session and number instead."""

    def deal(self, pk: int, number: int | None) -> Deal:
        if number is None:
            return access_deal(self.actor, pk, need=Role.SCORER)
        session = access_session(self.actor, pk, need=Role.SCORER)
        return access_deal_numbered(self.actor, session, number, need=Role.SCORER, ahead=True)

    def reach(self, pk: int, number: int | None) -> DealInReach:
        """The deal to write on: found by id in the statement that locks it
        (`DealInReach`), by number as `deal` finds it."""
        if number is None:
            return deal_in_reach(self.actor, pk, need=Role.SCORER)
        return DealInReach.by_id(self.deal(pk, number).pk)


class DealTapsView(DealWriteView):
    need = {"POST": Role.SCORER}

    @writes(io.TapInput, 201, io.DealOut, summary="A player went out")
    @gated
    def post(self, request: Request, pk: int, number: int | None = None) -> Response:
        deal = self.reach(pk, number)
        tap = self.valid(io.TapInput).validated_data
        state = services.deal_tap(
            deal_id=deal.id,
            player_id=tap["player"],
            not_played=tap["not_played"],
            loser=tap["loser"],
            actor=self.actor,
            reach=deal,
            after=tap["out_before"],
        )
        return deal_out(state, status.HTTP_201_CREATED)


class DealUndoView(DealWriteView):
    need = {"POST": Role.SCORER}

    @writes(None, 200, io.DealOut, summary="Take back the last tap or event")
    @gated
    def post(self, request: Request, pk: int, number: int | None = None) -> Response:
        deal = self.reach(pk, number)
        return deal_out(services.deal_undo(deal_id=deal.id, actor=self.actor, reach=deal))


class DealEndView(ApiView):
    need = {"POST": Role.SCORER}

    @writes(None, 200, io.DealOut, summary="End match: close the deal and the session")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        deal = access_deal(self.actor, pk, need=Role.SCORER)
        return deal_out(services.deal_end(deal_id=deal.pk, actor=self.actor))


class DealEventRecordView(DealWriteView):
    need = {"POST": Role.SCORER}

    @writes(EventSchema, 201, io.DealOut, summary="Record an event")
    @gated
    def post(self, request: Request, pk: int, number: int | None = None) -> Response:
        deal = self.reach(pk, number)
        event = parse_event(request.data)
        state = services.deal_event_record(
            deal_id=deal.id, event=event, actor=self.actor, reach=deal
        )
        return deal_out(state, status.HTTP_201_CREATED)


class DealEventsView(DealEventRecordView):
    need = {"GET": Role.VIEWER, "POST": Role.SCORER}

    @reads(EventListSchema, summary="The events that stand on a deal")
    def get(self, request: Request, pk: int) -> Response:
        events = selectors.deal_events(access_deal(self.actor, pk))
        return Response([event_data(event) for event in events])


class DealEventDetailView(ApiView):
    need = {"DELETE": Role.SCORER}

    @writes(None, 200, io.DealOut, summary="Remove a mistaken event")
    @gated
    def delete(self, request: Request, pk: int, event_id: int) -> Response:
        deal = access_deal(self.actor, pk, need=Role.SCORER)
        state = services.deal_event_remove(deal_id=deal.pk, event_id=event_id, actor=self.actor)
        return deal_out(state)


class DealCorrectionView(ApiView):
    need = {"POST": Role.SCORER}

    @writes(io.CorrectionInput, 200, io.DealOut, summary="Correct a filed deal")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        deal = access_deal(self.actor, pk, need=Role.SCORER)
        correction = self.valid(io.CorrectionInput).validated_data
        state = services.deal_correct(
            deal_id=deal.pk,
            taps=correction.get("taps"),
            loser=correction["loser"],
            add_events=correction["add_events"],
            reason=correction["reason"],
            actor=self.actor,
        )
        return deal_out(state)
