"""Circles and their players in the API."""

from __future__ import annotations

from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from tracker import selectors, services
from tracker.access import Role, access_circle, access_player
from tracker.api import serializers as io
from tracker.api.base import ApiView, gated
from tracker.api.schema import reads, writes


class CircleListView(ApiView):
    need = {"GET": Role.MEMBER, "POST": Role.MEMBER}

    @reads(io.CircleOut(many=True), summary="Your circles")
    def get(self, request: Request) -> Response:
        return Response(io.CircleOut(selectors.circle_list(self.actor), many=True).data)

    @writes(io.NameInput, 201, io.CircleOut, summary="Start a circle")
    @gated
    def post(self, request: Request) -> Response:
        name = self.valid(io.NameInput).validated_data["name"]
        assert self.actor.user is not None  # a member: an account
        circle = services.circle_create(owner=self.actor.user, name=name)
        return Response(io.CircleOut(circle).data, status=status.HTTP_201_CREATED)


class CircleDetailView(ApiView):
    need = {"GET": Role.MEMBER, "PATCH": Role.MEMBER}

    @reads(io.CircleOut)
    def get(self, request: Request, pk: int) -> Response:
        return Response(io.CircleOut(access_circle(self.actor, pk)).data)

    @writes(io.NameInput, 200, io.CircleOut, summary="Rename a circle")
    @gated
    def patch(self, request: Request, pk: int) -> Response:
        circle = access_circle(self.actor, pk)
        name = self.valid(io.NameInput).validated_data["name"]
        circle = services.circle_rename(circle=circle, name=name)
        return Response(io.CircleOut(circle).data)


class CirclePlayersView(ApiView):
    need = {"GET": Role.MEMBER, "POST": Role.MEMBER}

    @reads(io.PlayerOut(many=True), summary="A circle's players")
    def get(self, request: Request, pk: int) -> Response:
        circle = access_circle(self.actor, pk)
        return Response(io.PlayerOut(selectors.circle_players(circle), many=True).data)

    @writes(io.NameInput, 201, io.PlayerOut, summary="Add a player to a circle")
    @gated
    def post(self, request: Request, pk: int) -> Response:
        circle = access_circle(self.actor, pk)
        name = self.valid(io.NameInput).validated_data["name"]
        player = services.player_create(circle=circle, name=name)
        return Response(io.PlayerOut(player).data, status=status.HTTP_201_CREATED)


class PlayerDetailView(ApiView):
    need = {"GET": Role.MEMBER, "PATCH": Role.MEMBER}

    @reads(io.PlayerOut)
    def get(self, request: Request, pk: int) -> Response:
        return Response(io.PlayerOut(access_player(self.actor, pk)).data)

    @writes(io.NameInput, 200, io.PlayerOut, summary="Rename a player")
    @gated
    def patch(self, request: Request, pk: int) -> Response:
        player = access_player(self.actor, pk)
        name = self.valid(io.NameInput).validated_data["name"]
        player = services.player_rename(player=player, name=name)
        return Response(io.PlayerOut(player).data)
