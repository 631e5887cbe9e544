"""The Django admin: browse and search everything; the ledger and history are read-only,
because they are derived from the facts or are the record of what happened.

What can be edited here (a circle and its members, a player's name, a session and its
seats, a share link, a payment) shows on sessions' pages, which keep what they computed
by the session's version (`tracker.answers`) and learn of changes by it (`tracker.live`).
An edit moves the version of every session it shows on, in the admin's own transaction,
as the services do: otherwise a page would keep showing the old name, and a link revoked
here would go on hearing a table's taps."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib import admin
from django.db import transaction
from django.db.models import Model, QuerySet

from tracker.models import (
    ApiToken,
    Circle,
    Correction,
    Deal,
    DealEvent,
    DealPlayer,
    Invite,
    LedgerLine,
    Payment,
    Player,
    Seat,
    Session,
    ShareLink,
    Tap,
)
from tracker.services.locks import sessions_moved_on, sessions_of_players


class MovesVersions(admin.ModelAdmin):
    """An admin whose edits and deletions move on the versions of the sessions they show
    on (`sessions_of`)."""

    def sessions_of(self, objects: QuerySet) -> QuerySet:  # type: ignore[type-arg]
        raise NotImplementedError

    def _ids(self, objects: Iterable[Model]) -> set[int]:
        pks = [obj.pk for obj in objects if obj.pk is not None]
        if not pks:
            return set()
        model = self.model
        return set(self.sessions_of(model._default_manager.filter(pk__in=pks)))

    def _moved_on(self, session_ids: set[int]) -> None:
        sessions_moved_on(Session.objects.filter(pk__in=session_ids), access=True)

    def save_model(self, request, obj, form, change):
        # The sessions it showed on before (a payment moved to another session, say);
        # the versions move once, in `save_related`, which the admin calls next.
        obj._sessions_before = self._ids([obj])
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)  # inlines: a session's seats
        obj = form.instance
        self._moved_on(getattr(obj, "_sessions_before", set()) | self._ids([obj]))

    def delete_model(self, request, obj):
        moved = self._ids([obj])
        super().delete_model(request, obj)
        self._moved_on(moved)

    @transaction.atomic  # the changelist's action runs outside one (found by a review)
    def delete_queryset(self, request, queryset):
        moved = self._ids(queryset)
        super().delete_queryset(request, queryset)
        self._moved_on(moved)


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Circle)
class CircleAdmin(MovesVersions):
    list_display = ["name", "owner", "created_at"]
    search_fields = ["name", "owner__username"]
    filter_horizontal = ["members"]

    def sessions_of(self, objects):
        # Its name heads the pages; a member removed here must stop hearing its tables.
        return Session.objects.filter(circle__in=objects).values_list("pk", flat=True)


@admin.register(Player)
class PlayerAdmin(MovesVersions):
    list_display = ["name", "circle", "created_at"]
    list_filter = ["circle"]
    search_fields = ["name", "circle__name"]

    def sessions_of(self, objects):
        return sessions_of_players(objects).values_list("pk", flat=True)


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0


@admin.register(Session)
class SessionAdmin(MovesVersions):
    list_display = [
        "name",
        "circle",
        "format",
        "stake_rule",
        "stake",
        "currency",
        "started_at",
        "ended_at",
    ]
    list_filter = ["format", "stake_rule", "currency", "circle"]
    search_fields = ["name", "circle__name"]
    date_hierarchy = "started_at"
    inlines = [SeatInline]
    # Moved on by every change, never set: a form read before a tap would take the
    # version back to one the session already had (found by a review).
    readonly_fields = ["version", "standings_version", "access_version"]

    def sessions_of(self, objects):
        return objects.values_list("pk", flat=True)


class DealPlayerInline(ReadOnlyInline):
    model = DealPlayer
    fields = ["seat", "player", "place", "points"]
    readonly_fields = fields


class TapInline(ReadOnlyInline):
    model = Tap
    fields = [
        "seq",
        "player",
        "place",
        "loser",
        "recorded_by",
        "recorded_via",
        "recorded_at",
        "undone_at",
    ]
    readonly_fields = fields


class DealEventInline(ReadOnlyInline):
    model = DealEvent
    fields = [
        "seq",
        "type",
        "player",
        "by",
        "owner",
        "beaten_with",
        "black",
        "red",
        "cards",
        "recorded_at",
        "undone_at",
    ]
    readonly_fields = fields


class LedgerLineInline(ReadOnlyInline):
    model = LedgerLine
    fields = ["position", "payer", "payee", "amount", "reason"]
    readonly_fields = fields


class CorrectionInline(ReadOnlyInline):
    model = Correction
    fields = ["made_at", "made_by", "reason", "before", "after"]
    readonly_fields = fields


@admin.register(Deal)
class DealAdmin(admin.ModelAdmin):
    list_display = ["__str__", "number", "status", "winner", "loser", "opened_at", "closed_at"]
    list_filter = ["status", "session__circle"]
    search_fields = ["session__name", "session__circle__name"]
    list_select_related = ["session", "winner", "loser"]
    readonly_fields = [
        "session",
        "number",
        "status",
        "winner",
        "loser",
        "last_seq",
        "trading",
        "opened_at",
        "closed_at",
    ]
    inlines = [DealPlayerInline, TapInline, DealEventInline, LedgerLineInline, CorrectionInline]

    def has_add_permission(self, request):
        return False  # deals open by themselves when a session starts or a deal files

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(LedgerLine)
class LedgerLineAdmin(admin.ModelAdmin):
    list_display = ["deal", "payer", "payee", "amount", "reason"]
    list_filter = ["reason", "session__circle"]
    search_fields = ["payer__name", "payee__name", "session__name"]
    list_select_related = ["deal__session", "payer", "payee"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Correction)
class CorrectionAdmin(admin.ModelAdmin):
    list_display = ["deal", "made_by", "made_at", "reason"]
    search_fields = ["reason", "deal__session__name"]
    readonly_fields = ["deal", "reason", "before", "after", "made_by", "made_via", "made_at"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(ShareLink)
class ShareLinkAdmin(MovesVersions):
    list_display = ["session", "role", "created_at", "revoked_at"]
    list_filter = ["role"]
    search_fields = ["session__name"]
    exclude = ["token"]

    def has_add_permission(self, request):
        return False  # made on the session's share page, with a token (none here)

    def sessions_of(self, objects):
        # A link revoked here: its open streams read it again at the change, and end.
        return objects.values_list("session_id", flat=True)


@admin.register(Payment)
class PaymentAdmin(MovesVersions):
    list_display = ["session", "payer", "payee", "amount", "paid_at", "cancelled_at"]
    list_filter = ["session__circle"]
    search_fields = ["payer__name", "payee__name", "session__name"]

    def sessions_of(self, objects):
        return objects.values_list("session_id", flat=True)


@admin.register(Invite)
class InviteAdmin(admin.ModelAdmin):
    """Invites are made and revoked on the members page; here they can be looked at.
    The token is a secret: it is not shown."""

    list_display = ["circle", "created_by", "created_at", "expires_at", "max_uses", "uses"]
    list_filter = ["revoked_at"]
    exclude = ["token"]
    readonly_fields = ["circle", "created_by", "created_at", "uses", "revoked_by"]


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """API tokens: only a digest is stored; deleting one revokes it."""

    list_display = ["user", "prefix", "name", "created_at", "last_used_at"]
    search_fields = ["user__username", "prefix"]
    fields = ["user", "prefix", "name", "created_at", "last_used_at"]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False
