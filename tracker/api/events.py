"""Deal events in the API (SPEC 9): one serializer a type, read into scoring records and
written back from stored rows."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

import scoring
from tracker.api.fields import ClosedInput, IdField, renamed
from tracker.models import DealEvent
from tracker.records import event_record


class EventBase(ClosedInput):
    id = serializers.IntegerField(read_only=True)
    seq = serializers.IntegerField(read_only=True, help_text="Order on the deal.")
    type = serializers.CharField()

    def to_record(self) -> scoring.Record:
        return event_record(self.validated_data["type"], self.validated_data)


COUNT = {"min_value": 0, "max_value": 1000}


class TwoBeatenEvent(EventBase):
    by = IdField(source="by_id", help_text="The player who beat the 2s.")
    owner = IdField(source="owner_id", help_text="The player whose 2s were beaten.")
    beaten_with = serializers.ChoiceField(choices=DealEvent.Beater.values)
    black = serializers.IntegerField(default=0, **COUNT)
    red = serializers.IntegerField(default=0, **COUNT)

    def get_fields(self) -> dict[str, Any]:
        return renamed(super().get_fields(), beaten_with="with")


class CutupBeatenEvent(EventBase):
    by = IdField(source="by_id", help_text="The player whose cutup or bomb beat it.")
    owner = IdField(source="owner_id", help_text="The player whose cutup was beaten.")
    beaten_with = serializers.ChoiceField(
        choices=DealEvent.Beater.values,
        default=DealEvent.Beater.CUTUP.value,
        help_text="What beat it: a higher cutup (its earning can be doubled again) or a "
        "bomb (it cannot: beating a bomb earns nothing more). Left out: a cutup.",
    )

    def get_fields(self) -> dict[str, Any]:
        return renamed(super().get_fields(), beaten_with="with")


class HandEvent(EventBase):
    player = IdField(source="player_id")
    cards = serializers.IntegerField(help_text="Cards left in hand.", **COUNT)
    black_twos = serializers.IntegerField(default=0, **COUNT)
    red_twos = serializers.IntegerField(default=0, **COUNT)
    cutups = serializers.IntegerField(default=0, **COUNT)
    bombs = serializers.IntegerField(default=0, **COUNT)


@extend_schema_field({"type": "boolean", "enum": [True]})
class ApprovalField(serializers.BooleanField):
    """Everyone at the table approved: only `true` is accepted (see `validate_approved`)."""


class GuaransheedEvent(EventBase):
    player = IdField(source="player_id")
    blind = serializers.BooleanField(default=False)
    approved = ApprovalField(
        write_only=True, help_text="Everyone at the table approved it: must be true."
    )

    def validate_approved(self, approved: bool) -> bool:
        if not approved:
            raise serializers.ValidationError(
                _(
                    "A Guaransheed needs everyone at the table to approve it: ask them, "
                    "then send approved: true."
                )
            )
        return approved


class InstantWinEvent(EventBase):
    player = IdField(source="player_id")
    kind = serializers.ChoiceField(choices=DealEvent.Kind.values)


EVENTS: dict[str, type[EventBase]] = {
    DealEvent.Type.TWO_BEATEN: TwoBeatenEvent,
    DealEvent.Type.CUTUP_BEATEN: CutupBeatenEvent,
    DealEvent.Type.HAND: HandEvent,
    DealEvent.Type.GUARANSHEED: GuaransheedEvent,
    DealEvent.Type.INSTANT_WIN: InstantWinEvent,
}
EVENT_TYPES = ", ".join(EVENTS)

EventSchema = PolymorphicProxySerializer(
    component_name="DealEvent",
    serializers={str(kind): serializer for kind, serializer in EVENTS.items()},
    resource_type_field_name="type",
)
EventListSchema = PolymorphicProxySerializer(
    component_name="DealEvent",
    serializers={str(kind): serializer for kind, serializer in EVENTS.items()},
    resource_type_field_name="type",
    many=True,
)


def parse_event(data: Any) -> scoring.Record:
    """One event from a request body, as a scoring record; ValidationError if malformed."""
    if not isinstance(data, dict):
        raise serializers.ValidationError(_("An event is a JSON object with a type."))
    kind = data.get("type")
    if not isinstance(kind, str):
        raise serializers.ValidationError(
            _("The event type is missing; it must be one of %(types)s.") % {"types": EVENT_TYPES}
        )
    serializer_class = EVENTS.get(kind)
    if serializer_class is None:
        raise serializers.ValidationError(
            _("The event type is %(type)s; it must be one of %(types)s.")
            % {"type": f'"{kind}"'[:60], "types": EVENT_TYPES}
        )
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.to_record()


@extend_schema_field(EventSchema)
class EventField(serializers.Field):
    def to_internal_value(self, data: Any) -> scoring.Record:
        return parse_event(data)

    def to_representation(self, event: DealEvent) -> dict[str, Any]:
        return event_data(event)


def event_data(event: DealEvent) -> dict[str, Any]:
    return EVENTS[event.type](event).data
