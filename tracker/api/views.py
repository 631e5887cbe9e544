"""The API's views: each validates its input, calls one service (writes) or selector
(reads), and answers with an output serializer. Who may call what is in `permissions`;
every write goes through `idempotency.idempotent`."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.core.cache import BaseCache, caches
from django.http import HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication, TokenAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import ValidationError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle
from rest_framework.views import APIView

import scoring
from tracker import selectors, services
from tracker.api import leaderboard as board_io
from tracker.api import serializers as io
from tracker.api.authentication import ShareLinkAuthentication
from tracker.api.exceptions import api_exception_handler
from tracker.api.idempotency import idempotent
from tracker.api.pagination import Pages
from tracker.api.parsers import JSONBodyParser
from tracker.api.permissions import (
    Access,
    Caller,
    CallerPermission,
    circle_of,
    circles_of,
    deal_of,
    player_of,
    session_of,
    sessions_of,
    share_link_of,
)
from tracker.api.schema import BAD_QUERY, ERROR, RETRY_AFTER, THROTTLED, reads, writes
from tracker.models import Circle, Session, ShareLink

# --- Shared plumbing ----------------------------------------------------------------------

PARSERS = [JSONBodyParser, FormParser, MultiPartParser]


# --- Throttling ---------------------------------------------------------------------------


class SharedRateThrottle(SimpleRateThrottle):
    """A DRF rate throttle whose counters are in the "throttle" cache (the database), so
    every worker and server counts the same requests. The rate is read per request from
    settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"][scope]; None turns it off. A throttled
    request gets 429 with Retry-After."""

    @property
    def cache(self) -> BaseCache:  # type: ignore[override]
        return caches["throttle"]

    def get_rate(self) -> str | None:
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.caller_key(request)}

    def caller_key(self, request: Request) -> str:
        return f"ip:{self.get_ident(request)}"


class AuthThrottle(SharedRateThrottle):
    """Password guesses: token requests per client IP."""

    scope = "auth"


class WritesThrottle(SharedRateThrottle):
    """API writes per account or share link (per IP for anything else); reads are free."""

    scope = "writes"

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        return super().allow_request(request, view)

    def caller_key(self, request: Request) -> str:
        if request.user is not None and request.user.is_authenticated:
            return f"user:{request.user.pk}"
        if isinstance(request.auth, ShareLink):
            return f"link:{request.auth.pk}"
        return super().caller_key(request)


class ApiView(APIView):
    """Token, share link or session login (CSRF enforced); `access` maps each HTTP method
    to the least a caller needs (see `permissions`)."""

    authentication_classes = [TokenAuthentication, ShareLinkAuthentication, SessionAuthentication]
    permission_classes = [CallerPermission]
    throttle_classes = [WritesThrottle]
    parser_classes = PARSERS
    access: dict[str, Access] = {}

    def get_exception_handler(self) -> Any:
        return api_exception_handler

    @property
    def caller(self) -> Caller:
        caller = Caller.of(self.request)
        assert caller is not None  # CallerPermission let only known callers in
        return caller

    def valid(self, serializer_class: type[Serializer]) -> Any:
        """The request body, validated; a body that is not a JSON object is refused."""
        if not isinstance(self.request.data, dict):
            raise ValidationError(_("The request body must be a JSON object."))
        serializer = serializer_class(data=self.request.data)
        serializer.is_valid(raise_exception=True)
        return serializer

    def paginated(self, queryset: Any, serializer_class: type[Serializer]) -> Response:
        paginator = Pages()
        page = paginator.paginate_queryset(queryset, self.request, view=self)
        return paginator.get_paginated_response(serializer_class(page, many=True).data)


def session_out(session: Session, code: int = status.HTTP_200_OK) -> Response:
    fresh = selectors.session_queryset().get(pk=session.pk)
    return Response(io.SessionOut(fresh).data, status=code)


def deal_out(deal: Any, code: int = status.HTTP_200_OK) -> Response:
    return Response(io.DealOut(selectors.deal_detail(deal)).data, status=code)


# --- Sign-in ------------------------------------------------------------------------------


class AuthTokenView(APIView):
    """Trade a username and password for an API token (the same token every time)."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = [AuthThrottle]
    parser_classes = PARSERS

    def get_exception_handler(self) -> Any:
        return api_exception_handler

    @extend_schema(
        request=io.TokenInput,
        responses={200: io.TokenOut, 400: ERROR, 429: THROTTLED},
        parameters=[RETRY_AFTER],
        auth=[],
        summary="Get an API token",
    )
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise ValidationError(_("The request body must be a JSON object."))
        credentials = io.TokenInput(data=request.data)
        credentials.is_valid(raise_exception=True)
        user = authenticate(request, **credentials.validated_data)
        if user is None:
            raise services.Invalid(
                gettext_noop("That username and password do not match an account.")
            )
        token, _created = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


# --- Circles and players ------------------------------------------------------------------


class CircleListView(ApiView):
    access = {"GET": Access.MEMBER, "POST": Access.MEMBER}

    @reads(io.CircleOut(many=True), summary="Your circles")
    def get(self, request: Request) -> Response:
        circles = circles_of(self.caller).order_by("name", "id")
        return Response(io.CircleOut(circles, many=True).data)

    @writes(io.NameInput, 201, io.CircleOut, summary="Start a circle")
    @idempotent
    def post(self, request: Request) -> Response:
        name = self.valid(io.NameInput).validated_data["name"]
        circle = services.circle_create(owner=self.caller.user, name=name)
        return Response(io.CircleOut(circle).data, status=status.HTTP_201_CREATED)


class CircleDetailView(ApiView):
    access = {"GET": Access.MEMBER, "PATCH": Access.MEMBER}

    @reads(io.CircleOut)
    def get(self, request: Request, pk: int) -> Response:
        return Response(io.CircleOut(circle_of(self.caller, pk)).data)

    @writes(io.NameInput, 200, io.CircleOut, summary="Rename a circle")
    @idempotent
    def patch(self, request: Request, pk: int) -> Response:
        circle = circle_of(self.caller, pk)
        name = self.valid(io.NameInput).validated_data["name"]
        circle = services.circle_rename(circle=circle, name=name)
        return Response(io.CircleOut(circle).data)


class CirclePlayersView(ApiView):
    access = {"GET": Access.MEMBER, "POST": Access.MEMBER}

    @reads(io.PlayerOut(many=True), summary="A circle's players")
    def get(self, request: Request, pk: int) -> Response:
        circle = circle_of(self.caller, pk)
        return Response(io.PlayerOut(circle.players.order_by("name", "id"), many=True).data)

    @writes(io.NameInput, 201, io.PlayerOut, summary="Add a player to a circle")
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        circle = circle_of(self.caller, pk)
        name = self.valid(io.NameInput).validated_data["name"]
        player = services.player_create(circle=circle, name=name)
        return Response(io.PlayerOut(player).data, status=status.HTTP_201_CREATED)


class LeaderboardBase(ApiView):
    access = {"GET": Access.MEMBER}

    def leaderboard(
        self, pk: int
    ) -> tuple[Circle, selectors.Leaderboard, board_io.LeaderboardQuery]:
        """The circle in reach (404 otherwise), then its leaderboard over `?since=` and
        `?until=` (400 for a day that is not `YYYY-MM-DD`, or `since` after `until`)."""
        circle = circle_of(self.caller, pk)
        query = board_io.LeaderboardQuery(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        since, until = query.bounds()
        return circle, selectors.circle_leaderboard(circle, since=since, until=until), query


class CircleLeaderboardView(LeaderboardBase):
    @reads(
        board_io.LeaderboardOut,
        summary="The circle leaderboard: standings summed, skill, head-to-head, charts",
        description="Every counted deal of the circle's sessions, or those closed from `since` "
        "to `until` (whole days, both included). `rows` are in leaderboard order: points, "
        "wins, net, name.",
        parameters=board_io.LEADERBOARD_PARAMETERS,
        checks_query=True,
    )
    def get(self, request: Request, pk: int) -> Response:
        _, board, query = self.leaderboard(pk)
        return Response(board_io.leaderboard_data(board, query))


class AnswerWithFirstRenderer(DefaultContentNegotiation):
    """Whatever `Accept` says (`text/csv`, `?format=`), a refusal is JSON: the view's only
    renderer. The export itself is a plain HttpResponse that no renderer touches."""

    def select_renderer(
        self, request: Request, renderers: list[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        return renderers[0], renderers[0].media_type


CSV_MEDIA_TYPE = "text/csv"


class CircleLeaderboardCsvView(LeaderboardBase):
    renderer_classes = [JSONRenderer]
    content_negotiation_class = AnswerWithFirstRenderer

    @extend_schema(
        summary="The circle leaderboard as CSV",
        operation_id="circles_leaderboard_csv",
        description="One row a player in leaderboard order, with a header row: "
        + ", ".join(selectors.LEADERBOARD_COLUMNS)
        + ". Refusals are JSON, as everywhere.",
        parameters=[
            *board_io.LEADERBOARD_PARAMETERS,
            OpenApiParameter(
                "Content-Disposition",
                {"type": "string", "pattern": r'^attachment; filename="[a-z0-9_-]+\.csv"$'},
                OpenApiParameter.HEADER,
                required=True,
                description='`attachment; filename="<circle-name>-leaderboard.csv"`.',
                response=[200],
            ),
        ],
        responses={
            (200, CSV_MEDIA_TYPE): OpenApiResponse(
                OpenApiTypes.STR, description="The leaderboard as CSV (UTF-8)."
            ),
            400: BAD_QUERY,
            401: ERROR,
            403: ERROR,
            404: ERROR,
        },
    )
    def get(self, request: Request, pk: int) -> HttpResponse:
        circle, board, _ = self.leaderboard(pk)
        response = HttpResponse(
            selectors.leaderboard_csv(board), content_type=f"{CSV_MEDIA_TYPE}; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{board_io.csv_filename(circle)}"'
        return response


class PlayerDetailView(ApiView):
    access = {"GET": Access.MEMBER, "PATCH": Access.MEMBER}

    @reads(io.PlayerOut)
    def get(self, request: Request, pk: int) -> Response:
        return Response(io.PlayerOut(player_of(self.caller, pk)).data)

    @writes(io.NameInput, 200, io.PlayerOut, summary="Rename a player")
    @idempotent
    def patch(self, request: Request, pk: int) -> Response:
        player = player_of(self.caller, pk)
        name = self.valid(io.NameInput).validated_data["name"]
        player = services.player_rename(player=player, name=name)
        return Response(io.PlayerOut(player).data)


# --- Sessions -----------------------------------------------------------------------------


class SessionListView(ApiView):
    access = {"GET": Access.VIEWER, "POST": Access.MEMBER}
    pagination_class = Pages

    @reads(
        io.SessionOut(many=True),
        summary="Sessions you can see, newest first",
        parameters=[io.SessionFilter],
        checks_query=True,
    )
    def get(self, request: Request) -> Response:
        sessions = sessions_of(self.caller, selectors.session_queryset())
        query = io.SessionFilter(data=request.query_params)
        query.is_valid(raise_exception=True)
        if "circle" in query.validated_data:
            sessions = sessions.filter(circle_id=query.validated_data["circle"])
        return self.paginated(sessions.order_by("-started_at", "-id"), io.SessionOut)

    @writes(io.SessionInput, 201, io.SessionOut, summary="Start a session")
    @idempotent
    def post(self, request: Request) -> Response:
        data = self.valid(io.SessionInput).validated_data
        circle = circles_of(self.caller).filter(pk=data["circle"]).first()
        if circle is None:
            raise services.Invalid(
                gettext_noop("There is no circle %(id)s of yours."), id=data["circle"]
            )
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
            actor=self.caller.actor,
        )
        return session_out(session, status.HTTP_201_CREATED)


class SessionDetailView(ApiView):
    access = {"GET": Access.VIEWER}

    @reads(io.SessionOut)
    def get(self, request: Request, pk: int) -> Response:
        session = session_of(self.caller, pk, selectors.session_queryset())
        return Response(io.SessionOut(session).data)


class SessionEndView(ApiView):
    access = {"POST": Access.SCORER}

    @writes(None, 200, io.SessionOut, summary="End the session (End match on its open deal)")
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        session = session_of(self.caller, pk)
        session = services.session_end(session_id=session.pk, actor=self.caller.actor)
        return session_out(session)


class SessionPlayersView(ApiView):
    access = {"PUT": Access.SCORER}

    @writes(io.SeatingInput, 200, io.SessionOut, summary="Change who sits at the table")
    @idempotent
    def put(self, request: Request, pk: int) -> Response:
        session = session_of(self.caller, pk)
        players = self.valid(io.SeatingInput).validated_data["players"]
        session = services.session_seat(
            session_id=session.pk, players=players, actor=self.caller.actor
        )
        return session_out(session)


class SessionDealsView(ApiView):
    access = {"GET": Access.VIEWER}
    pagination_class = Pages

    @reads(
        io.DealSummaryOut(many=True),
        summary="The session's deals, newest first",
        checks_query=True,
    )
    def get(self, request: Request, pk: int) -> Response:
        session = session_of(self.caller, pk)
        return self.paginated(selectors.session_deals(session), io.DealSummaryOut)


class StandingsView(ApiView):
    access = {"GET": Access.VIEWER}

    @reads(io.StandingsOut, summary="Session standings")
    def get(self, request: Request, pk: int) -> Response:
        session = session_of(self.caller, pk)
        return Response(io.standings_data(selectors.session_standings(session)))


class SettlementView(ApiView):
    access = {"GET": Access.VIEWER}

    @reads(io.SettlementOut, summary="Balances and the fewest transfers that clear them")
    def get(self, request: Request, pk: int) -> Response:
        session = session_of(self.caller, pk)
        return Response(io.settlement_data(session, selectors.session_settlement(session)))


class SettlementPaidView(ApiView):
    access = {"POST": Access.SCORER}

    @writes(io.TransferInput, 201, io.SettlementOut, summary="Mark a transfer paid")
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        session = session_of(self.caller, pk)
        transfer = self.valid(io.TransferInput).transfer()
        services.transfer_mark_paid(
            session_id=session.pk,
            payer_id=transfer.payer,
            payee_id=transfer.payee,
            amount=transfer.amount,
            actor=self.caller.actor,
        )
        settlement = selectors.session_settlement(session)
        return Response(io.settlement_data(session, settlement), status=status.HTTP_201_CREATED)


class SettlementUnpaidView(ApiView):
    access = {"POST": Access.SCORER}

    @writes(io.TransferInput, 200, io.SettlementOut, summary="Mark a paid transfer unpaid")
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        session = session_of(self.caller, pk)
        transfer = self.valid(io.TransferInput).transfer()
        services.transfer_mark_unpaid(
            session_id=session.pk,
            payer_id=transfer.payer,
            payee_id=transfer.payee,
            amount=transfer.amount,
            actor=self.caller.actor,
        )
        return Response(io.settlement_data(session, selectors.session_settlement(session)))


# --- Share links --------------------------------------------------------------------------


class ShareLinksView(ApiView):
    access = {"GET": Access.MEMBER, "POST": Access.MEMBER}

    @reads(io.ShareLinkOut(many=True), summary="The session's share links, newest first")
    def get(self, request: Request, pk: int) -> Response:
        session = session_of(self.caller, pk)
        links = session.share_links.order_by("-created_at", "-id")
        return Response(io.ShareLinkOut(links, many=True).data)

    @writes(
        io.ShareLinkInput,
        201,
        io.ShareLinkOut,
        summary="Make a share link (revokes the active link of the same role)",
    )
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        session = session_of(self.caller, pk)
        role = self.valid(io.ShareLinkInput).validated_data["role"]
        link = services.share_link_create(session_id=session.pk, role=role, actor=self.caller.actor)
        return Response(io.ShareLinkOut(link).data, status=status.HTTP_201_CREATED)


class ShareLinkRevokeView(ApiView):
    access = {"POST": Access.MEMBER}

    @writes(None, 200, io.ShareLinkOut, summary="Revoke a share link")
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        link = share_link_of(self.caller, pk)
        link = services.share_link_revoke(link_id=link.pk, actor=self.caller.actor)
        return Response(io.ShareLinkOut(link).data)


# --- Deals --------------------------------------------------------------------------------


class DealDetailView(ApiView):
    access = {"GET": Access.VIEWER}

    @reads(io.DealOut, summary="A deal: taps, events, points and ledger")
    def get(self, request: Request, pk: int) -> Response:
        return deal_out(deal_of(self.caller, pk))


class DealTapsView(ApiView):
    access = {"POST": Access.SCORER}

    @writes(io.TapInput, 201, io.DealOut, summary="A player went out")
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        deal = deal_of(self.caller, pk)
        tap = self.valid(io.TapInput).validated_data
        deal = services.deal_tap(
            deal_id=deal.pk,
            player_id=tap["player"],
            not_played=tap["not_played"],
            loser=tap["loser"],
            actor=self.caller.actor,
        )
        return deal_out(deal, status.HTTP_201_CREATED)


class DealUndoView(ApiView):
    access = {"POST": Access.SCORER}

    @writes(None, 200, io.DealOut, summary="Take back the last tap or event")
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        deal = deal_of(self.caller, pk)
        return deal_out(services.deal_undo(deal_id=deal.pk, actor=self.caller.actor))


class DealEndView(ApiView):
    access = {"POST": Access.SCORER}

    @writes(None, 200, io.DealOut, summary="End match: close the deal and the session")
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        deal = deal_of(self.caller, pk)
        return deal_out(services.deal_end(deal_id=deal.pk, actor=self.caller.actor))


class DealEventsView(ApiView):
    access = {"GET": Access.VIEWER, "POST": Access.SCORER}

    @reads(io.EventListSchema, summary="The events that stand on a deal")
    def get(self, request: Request, pk: int) -> Response:
        events = selectors.deal_events(deal_of(self.caller, pk))
        return Response([io.event_data(event) for event in events])

    @writes(io.EventSchema, 201, io.DealOut, summary="Record an event")
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        deal = deal_of(self.caller, pk)
        event = io.parse_event(request.data)
        deal = services.deal_event_record(deal_id=deal.pk, event=event, actor=self.caller.actor)
        return deal_out(deal, status.HTTP_201_CREATED)


class DealEventDetailView(ApiView):
    access = {"DELETE": Access.SCORER}

    @writes(None, 200, io.DealOut, summary="Remove a mistaken event")
    @idempotent
    def delete(self, request: Request, pk: int, event_id: int) -> Response:
        deal = deal_of(self.caller, pk)
        deal = services.deal_event_remove(
            deal_id=deal.pk, event_id=event_id, actor=self.caller.actor
        )
        return deal_out(deal)


class DealCorrectionView(ApiView):
    access = {"POST": Access.SCORER}

    @writes(io.CorrectionInput, 200, io.DealOut, summary="Correct a filed deal")
    @idempotent
    def post(self, request: Request, pk: int) -> Response:
        deal = deal_of(self.caller, pk)
        correction = self.valid(io.CorrectionInput).validated_data
        deal = services.deal_correct(
            deal_id=deal.pk,
            taps=correction.get("taps"),
            loser=correction["loser"],
            add_events=correction["add_events"],
            reason=correction["reason"],
            actor=self.caller.actor,
        )
        return deal_out(deal)
