"""The pages' URLs.

A session's pages are mounted twice on the same views: under `/sessions/<id>/` for the
circle's members (namespace `member`), and under `/s/<token>/` for a share link (namespace
`link`) — a scorer link may tap, a viewer link may only look. `tracker.views.doors`
works out which way a request came in; `tracker.access` what it may do.
"""

from django.urls import include, path

from tracker.views import (
    accounts,
    circles,
    deals,
    exports,
    home,
    leaderboard,
    live,
    members,
    payment_details,
    players,
    sessions,
    settle,
    share,
    standings,
    summary,
    tap,
)

session_pages = [
    path("", tap.tap_screen_page, name="tap"),
    path("tap/", tap.tap, name="tap_player"),
    path("undo/", tap.undo, name="undo"),
    path("event/", tap.event, name="event"),
    path("event/preview/", tap.event_preview, name="event_preview"),
    path("end/", tap.end, name="end"),
    path("players/", players.players, name="players"),
    path("standings/", standings.standings, name="standings"),
    path("live/", live.live, name="live"),
    path("deals/", deals.deals, name="deals"),
    path("deals/<int:number>/", deals.deal, name="deal"),
    path("deals/<int:number>/add/", deals.deal_add, name="deal_add"),
    # Where a phone's offline queue sends what waited: the deal by its number, which the
    # server may not have opened when the write was made (docs/pages.md, "Offline").
    path("deals/<int:number>/tap/", tap.tap, name="deal_tap"),
    path("deals/<int:number>/undo/", tap.undo, name="deal_undo"),
    path("deals/<int:number>/event/", tap.event, name="deal_event"),
    path("settle/", settle.settle, name="settle"),
    path("settle/paid/", settle.paid, name="paid"),
    path("settle/payment/", settle.payment, name="payment"),
    path("settle/cancel/", settle.payment_cancel, name="payment_cancel"),
    path("summary/", summary.summary, name="summary"),
    path("ledger.csv", exports.ledger_csv, name="ledger_csv"),
    path("session.json", exports.session_json, name="session_json"),
    path("share/", share.share, name="share"),
    path("share/revoke/", share.share_revoke, name="share_revoke"),
]

urlpatterns = [
    path("", home.home, name="home"),
    path("accounts/signup/", accounts.sign_up, name="signup"),
    path("accounts/", accounts.account, name="account"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("theme/", home.set_theme, name="set_theme"),
    path("circles/new/", circles.circle_new, name="circle_new"),
    path("circles/<int:circle_id>/", circles.circle_detail, name="circle"),
    path(
        "circles/<int:circle_id>/leaderboard/",
        leaderboard.leaderboard,
        name="circle_leaderboard",
    ),
    path(
        "circles/<int:circle_id>/leaderboard.csv",
        leaderboard.leaderboard_csv,
        name="circle_leaderboard_csv",
    ),
    path("circles/<int:circle_id>/backup.json", exports.circle_backup, name="circle_backup"),
    path("circles/<int:circle_id>/players/", circles.player_add, name="player_add"),
    path(
        "circles/<int:circle_id>/players/<int:player_id>/",
        circles.player_rename,
        name="player_rename",
    ),
    path(
        "circles/<int:circle_id>/players/<int:player_id>/payment/",
        payment_details.payment_details,
        name="player_payment_details",
    ),
    path("circles/<int:circle_id>/sessions/new/", sessions.session_new, name="session_new"),
    path("circles/<int:circle_id>/members/", members.members, name="circle_members"),
    path(
        "circles/<int:circle_id>/members/remove/",
        members.member_remove,
        name="circle_member_remove",
    ),
    path("circles/<int:circle_id>/members/owner/", members.hand_over, name="circle_hand_over"),
    path("circles/<int:circle_id>/invites/", members.invite_new, name="circle_invite_new"),
    path(
        "circles/<int:circle_id>/invites/revoke/",
        members.invite_revoke,
        name="circle_invite_revoke",
    ),
    path(
        "circles/<int:circle_id>/players/<int:player_id>/me/",
        members.player_claim,
        name="player_claim",
    ),
    path(
        "circles/<int:circle_id>/players/<int:player_id>/not-me/",
        members.player_unclaim,
        name="player_unclaim",
    ),
    path("join/<str:token>/", members.join, name="join"),
    path("sessions/<int:session_id>/", include((session_pages, "session"), namespace="member")),
    path("s/<str:token>/", include((session_pages, "session"), namespace="link")),
]
