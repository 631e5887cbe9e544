"""Sessions in the API: start, read, list, seat the players, end; their deals. Their
standings are in `tracker.api.standings`, their settlement in `tracker.api.settlement`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext_noop
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

import scoring
from tracker import selectors, services
from tracker.access import Role, access_circle, access_session
from tracker.api import serializers as io
from tracker.api.base import ApiView, gated
from tracker.api.pagination import StrictPagination
from tracker.api.schema import reads, watched, writes
from tracker.errors import Invalid, NotFound
from tracker.models import Session


def sessions_data(sessions: Sequence[Session]) -> Any:
    """Sessions as JSON, with whether each is settled and how much is open (three more
    queries, however many sessions)."""
    money = selectors.session_settlements(sessions)
    return io.SessionOut(sessions, many=True, context={"money": money}).data


def session_out(session: Session, code: int = status.HTTP_200_OK) -> Response:
    return Response(sessions_data([selectors.session_detail(session)])[0], status=code)


class SessionListView(ApiView):
    need = {"GET": Role.VIEWER, "POST": Role.MEMBER}
    pagination_class = StrictPagination

    @reads(
        io.SessionOut(many=True),
        summary="Sessions you can see, newest first",
        parameters=[io.SessionFilter],
        checks_query=True,
    )
    def get(self, request: Request) -> Response:
        query = io.SessionFilter(data=request.query_params)
        query.is_valid(raise_exception=True)
        sessions = selectors.session_list(self.actor, circle=query.validated_data.get("circle"))
        paginator = StrictPagination()
        page = paginator.paginate_queryset(sessions, request, view=self)
        return paginator.get_paginated_response(sessions_data(page))

    @writes(io.SessionInput, 201, io.SessionOut, summary="Start a session")
    @gated
    def post(self, request: Request) -> Response:
        data = self.valid(io.SessionInput).validated_data
        try:
            circle = access_circle(self.actor, data["circle"])
        except NotFound:  # named in the body, not the address: the body is wrong
            raise Invalid(
                gettext_noop("There is no circle %(id)s of yours."), id=data["circle"]
            ) from None
        session = services.session_create(
            circle=circle,
            name=data["name"],
            players=data["players"],
            format=data["format"],
            stake_rule=data["stake_rule"],
            stake=data["stake"],
            currency=data["currency"],
            hand_size=data["hand_size"],
            options=scoring.Options(**data.get("options", {})),
            actor=self.actor,
        )
        return session_out(session, status.HTTP_201_CREATED)


class SessionDetailView(ApiView):
    need = {"GET": Role.VIEWER}
    watches = "session"

    @watched(io.SessionOut)
    def get(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk)

        def answer() -> Response:
            shown = selectors.session_queryset().get(pk=session.pk)  # seats, open deal
            return Response(sessions_data([shown])[0])

        return self.fresh(session, answer)


class SessionEndView(ApiView):
    need = {"POST": Role.SCORER}

    @writes(None, 200, io.SessionOut, summary="End the session (End match on its open deal)")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk, need=Role.SCORER)
        return session_out(services.session_end(session_id=session.pk, actor=self.actor))


class SessionPlayersView(ApiView):
    need = {"PUT": Role.SCORER}

    @writes(io.SeatingInput, 200, io.SessionOut, summary="Change who sits at the table")
    @gated
    def put(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk, need=Role.SCORER)
        players = self.valid(io.SeatingInput).validated_data["players"]
        session = services.players_seat(session_id=session.pk, players=players, actor=self.actor)
        return session_out(session)


class SessionDealsView(ApiView):
    need = {"GET": Role.VIEWER}
    pagination_class = StrictPagination

    @reads(
        io.DealSummaryOut(many=True),
        summary="The session's deals, newest first",
        checks_query=True,
    )
    def get(self, request: Request, pk: int) -> Response:
        session = access_session(self.actor, pk)
        return self.paginated(selectors.session_deals(session), io.DealSummaryOut)
