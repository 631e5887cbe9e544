from django.urls import path

from tracker.api import views

app_name = "api"

urlpatterns = [
    path("auth/token/", views.AuthTokenView.as_view(), name="auth-token"),
    path("circles/", views.CircleListView.as_view(), name="circles"),
    path("circles/<int:pk>/", views.CircleDetailView.as_view(), name="circle"),
    path("circles/<int:pk>/players/", views.CirclePlayersView.as_view(), name="circle-players"),
    path(
        "circles/<int:pk>/leaderboard/",
        views.CircleLeaderboardView.as_view(),
        name="circle-leaderboard",
    ),
    path(
        "circles/<int:pk>/leaderboard.csv",
        views.CircleLeaderboardCsvView.as_view(),
        name="circle-leaderboard-csv",
    ),
    path("players/<int:pk>/", views.PlayerDetailView.as_view(), name="player"),
    path("sessions/", views.SessionListView.as_view(), name="sessions"),
    path("sessions/<int:pk>/", views.SessionDetailView.as_view(), name="session"),
    path("sessions/<int:pk>/end/", views.SessionEndView.as_view(), name="session-end"),
    path("sessions/<int:pk>/players/", views.SessionPlayersView.as_view(), name="session-players"),
    path("sessions/<int:pk>/deals/", views.SessionDealsView.as_view(), name="session-deals"),
    path("sessions/<int:pk>/standings/", views.StandingsView.as_view(), name="standings"),
    path("sessions/<int:pk>/settlement/", views.SettlementView.as_view(), name="settlement"),
    path(
        "sessions/<int:pk>/settlement/paid/",
        views.SettlementPaidView.as_view(),
        name="settlement-paid",
    ),
    path(
        "sessions/<int:pk>/settlement/unpaid/",
        views.SettlementUnpaidView.as_view(),
        name="settlement-unpaid",
    ),
    path("sessions/<int:pk>/share-links/", views.ShareLinksView.as_view(), name="share-links"),
    path(
        "share-links/<int:pk>/revoke/",
        views.ShareLinkRevokeView.as_view(),
        name="share-link-revoke",
    ),
    path("deals/<int:pk>/", views.DealDetailView.as_view(), name="deal"),
    path("deals/<int:pk>/taps/", views.DealTapsView.as_view(), name="deal-taps"),
    path("deals/<int:pk>/undo/", views.DealUndoView.as_view(), name="deal-undo"),
    path("deals/<int:pk>/end/", views.DealEndView.as_view(), name="deal-end"),
    path("deals/<int:pk>/events/", views.DealEventsView.as_view(), name="deal-events"),
    path(
        "deals/<int:pk>/events/<int:event_id>/",
        views.DealEventDetailView.as_view(),
        name="deal-event",
    ),
    path("deals/<int:pk>/correction/", views.DealCorrectionView.as_view(), name="deal-correction"),
]
