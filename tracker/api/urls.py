from django.urls import path

from tracker.api import (
    auth,
    circles,
    deals,
    exports,
    leaderboard,
    members,
    payment_details,
    payments,
    sessions,
    settlement,
    share_links,
    standings,
)

app_name = "api"

urlpatterns = [
    path("auth/token/", auth.AuthTokenView.as_view(), name="auth-token"),
    path("auth/tokens/", auth.TokenListView.as_view(), name="auth-tokens"),
    path("auth/tokens/<int:pk>/revoke/", auth.TokenRevokeView.as_view(), name="auth-token-revoke"),
    path("auth/sign-out/", auth.SignOutView.as_view(), name="auth-sign-out"),
    path("circles/", circles.CircleListView.as_view(), name="circles"),
    path("circles/<int:pk>/", circles.CircleDetailView.as_view(), name="circle"),
    path("circles/<int:pk>/players/", circles.CirclePlayersView.as_view(), name="circle-players"),
    path(
        "circles/<int:pk>/leaderboard/",
        leaderboard.CircleLeaderboardView.as_view(),
        name="circle-leaderboard",
    ),
    path(
        "circles/<int:pk>/leaderboard.csv",
        leaderboard.CircleLeaderboardCsvView.as_view(),
        name="circle-leaderboard-csv",
    ),
    path("circles/<int:pk>/members/", members.MembersView.as_view(), name="circle-members"),
    path(
        "circles/<int:pk>/members/<int:user_id>/",
        members.MemberDetailView.as_view(),
        name="circle-member",
    ),
    path("circles/<int:pk>/owner/", members.CircleOwnerView.as_view(), name="circle-owner"),
    path("circles/<int:pk>/invites/", members.InvitesView.as_view(), name="circle-invites"),
    path("invites/<int:pk>/revoke/", members.InviteRevokeView.as_view(), name="invite-revoke"),
    path("invites/accept/", members.InviteAcceptView.as_view(), name="invite-accept"),
    path("players/<int:pk>/", circles.PlayerDetailView.as_view(), name="player"),
    path("players/<int:pk>/claim/", members.PlayerClaimView.as_view(), name="player-claim"),
    path("players/<int:pk>/unclaim/", members.PlayerUnclaimView.as_view(), name="player-unclaim"),
    path("circles/<int:pk>/export/", exports.CircleExportView.as_view(), name="circle-export"),
    path(
        "players/<int:pk>/payment-details/",
        payment_details.PaymentDetailsView.as_view(),
        name="player-payment-details",
    ),
    path("sessions/", sessions.SessionListView.as_view(), name="sessions"),
    path("sessions/<int:pk>/", sessions.SessionDetailView.as_view(), name="session"),
    path("sessions/<int:pk>/end/", sessions.SessionEndView.as_view(), name="session-end"),
    path(
        "sessions/<int:pk>/players/",
        sessions.SessionPlayersView.as_view(),
        name="session-players",
    ),
    path("sessions/<int:pk>/deals/", sessions.SessionDealsView.as_view(), name="session-deals"),
    path(
        "sessions/<int:pk>/ledger.csv",
        exports.SessionLedgerCsvView.as_view(),
        name="session-ledger-csv",
    ),
    path("sessions/<int:pk>/export/", exports.SessionExportView.as_view(), name="session-export"),
    path("sessions/<int:pk>/standings/", standings.StandingsView.as_view(), name="standings"),
    path(
        "sessions/<int:pk>/settlement/",
        settlement.SettlementView.as_view(),
        name="settlement",
    ),
    path(
        "sessions/<int:pk>/settlement/paid/",
        settlement.SettlementPaidView.as_view(),
        name="settlement-paid",
    ),
    path(
        "sessions/<int:pk>/settlement/unpaid/",
        settlement.SettlementUnpaidView.as_view(),
        name="settlement-unpaid",
    ),
    path(
        "sessions/<int:pk>/payments/",
        payments.PaymentsView.as_view(),
        name="payments",
    ),
    path(
        "sessions/<int:pk>/payments/<int:payment_id>/cancel/",
        payments.PaymentCancelView.as_view(),
        name="payment-cancel",
    ),
    path(
        "sessions/<int:pk>/share-links/",
        share_links.ShareLinksView.as_view(),
        name="share-links",
    ),
    path(
        "share-links/<int:pk>/revoke/",
        share_links.ShareLinkRevokeView.as_view(),
        name="share-link-revoke",
    ),
    # What a phone queued offline, addressed by session and deal number (the deal may not
    # have been open on the server when it was made): the deal's own views, `pk` being
    # the session's id there.
    path(
        "sessions/<int:pk>/deals/<int:number>/taps/",
        deals.DealTapsView.as_view(),
        name="session-deal-taps",
    ),
    path(
        "sessions/<int:pk>/deals/<int:number>/undo/",
        deals.DealUndoView.as_view(),
        name="session-deal-undo",
    ),
    path(
        "sessions/<int:pk>/deals/<int:number>/events/",
        deals.DealEventRecordView.as_view(),
        name="session-deal-events",
    ),
    path("deals/<int:pk>/", deals.DealDetailView.as_view(), name="deal"),
    path("deals/<int:pk>/taps/", deals.DealTapsView.as_view(), name="deal-taps"),
    path("deals/<int:pk>/undo/", deals.DealUndoView.as_view(), name="deal-undo"),
    path("deals/<int:pk>/end/", deals.DealEndView.as_view(), name="deal-end"),
    path("deals/<int:pk>/events/", deals.DealEventsView.as_view(), name="deal-events"),
    path(
        "deals/<int:pk>/events/<int:event_id>/",
        deals.DealEventDetailView.as_view(),
        name="deal-event",
    ),
    path(
        "deals/<int:pk>/correction/",
        deals.DealCorrectionView.as_view(),
        name="deal-correction",
    ),
]
