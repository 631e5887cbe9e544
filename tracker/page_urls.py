"""The pages' URLs.

A session's pages are mounted twice on the same views: under `/sessions/<id>/` for the
circle's members (namespace `member`), and under `/s/<token>/` for a share link (namespace
`link`) — a scorer link may tap, a viewer link may only look. `views.session_page` works
out which one a request came through.
"""

from django.urls import include, path

from tracker import views

session_pages = [
    path("", views.tap_screen, name="tap"),
    path("tap/", views.tap, name="tap_player"),
    path("undo/", views.undo, name="undo"),
    path("event/", views.record_event, name="event"),
    path("end/", views.end_match, name="end"),
    path("players/", views.seating, name="seating"),
    path("standings/", views.standings, name="standings"),
    path("deals/", views.deal_history, name="deals"),
    path("deals/<int:number>/", views.deal_detail, name="deal"),
    path("deals/<int:number>/add/", views.deal_add, name="deal_add"),
    path("settle/", views.settle_up, name="settle"),
    path("settle/paid/", views.transfer_paid, name="paid"),
    path("share/", views.share, name="share"),
    path("share/revoke/", views.share_revoke, name="share_revoke"),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/signup/", views.sign_up, name="signup"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("theme/", views.set_theme, name="set_theme"),
    path("circles/new/", views.circle_new, name="circle_new"),
    path("circles/<int:circle_id>/", views.circle_detail, name="circle"),
    path(
        "circles/<int:circle_id>/leaderboard/",
        views.circle_leaderboard,
        name="circle_leaderboard",
    ),
    path(
        "circles/<int:circle_id>/leaderboard.csv",
        views.circle_leaderboard_csv,
        name="circle_leaderboard_csv",
    ),
    path("circles/<int:circle_id>/players/", views.player_add, name="player_add"),
    path(
        "circles/<int:circle_id>/players/<int:player_id>/",
        views.player_rename,
        name="player_rename",
    ),
    path("circles/<int:circle_id>/sessions/new/", views.session_new, name="session_new"),
    path("sessions/<int:session_id>/", include((session_pages, "session"), namespace="member")),
    path("s/<str:token>/", include((session_pages, "session"), namespace="link")),
]
