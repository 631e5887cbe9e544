"""Inviting a friend, on two phones at 320 px: the host makes an invite link with a QR
code, the friend opens it, signs up and joins; the account page; all in English and
Vietnamese, without sideways scrolling."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import fits_width, sign_in
from tracker.models import Invite
from tracker.services import api_token_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SMALL = {"width": 320, "height": 568}


def test_a_friend_joins_by_an_invite_link(new_phone, circle, user, screenshot):
    host = new_phone()
    host.set_viewport_size(SMALL)
    sign_in(host, "host", "table-of-four")
    host.goto(f"/circles/{circle.pk}/")
    host.get_by_role("link", name="Members and invites").click()
    host.get_by_label("For", exact=True).select_option("any")
    host.get_by_role("button", name="Make an invite link").click()
    expect(host.locator(".qr svg")).to_be_visible()
    assert fits_width(host)
    screenshot(host, "70-members-invite", full_page=True)
    link = host.locator(".share-card__url a").inner_text()

    friend = new_phone()
    friend.set_viewport_size(SMALL)
    friend.goto(link)
    expect(friend.get_by_role("heading", level=1)).to_have_text("Join Friday table")
    assert fits_width(friend)
    screenshot(friend, "71-join-signed-out")
    friend.get_by_role("link", name="Sign up").last.click()
    expect(friend.get_by_text("You join Friday table as you sign up.")).to_be_visible()
    friend.get_by_label("Username").fill("friend")
    friend.locator("input[name=password1]").fill("tien-len-table-42")
    friend.locator("input[name=password2]").fill("tien-len-table-42")
    friend.locator("form.form button[type=submit]").click()
    # Signed up from the invite: in the circle at once, no Join to tap again.
    expect(friend.get_by_role("heading", level=1)).to_have_text("Friday table")
    assert circle.members.filter(username="friend").exists()
    assert Invite.objects.get().uses == 1

    host.reload()
    expect(host.locator(".list__title").filter(has_text="friend")).to_be_visible()


def test_the_members_and_account_pages_in_vietnamese_fit_320(
    new_phone, circle, user, actor, screenshot
):
    from tracker.services import invite_create

    invite_create(circle=circle, actor=actor)
    api_token_create(user=user, name="điện thoại")
    page = new_phone(locale="vi-VN")
    page.set_viewport_size(SMALL)
    page.goto("/")
    page.get_by_role("button", name="Tiếng Việt").click()
    page.goto("/accounts/login/")
    page.get_by_label("Tên đăng nhập").fill("host")
    page.get_by_label("Mật khẩu").fill("table-of-four")
    page.get_by_role("button", name="Đăng nhập").last.click()

    page.goto(f"/circles/{circle.pk}/members/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Thành viên")
    assert fits_width(page)
    screenshot(page, "72-vi-members", full_page=True)

    page.goto("/accounts/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Tài khoản của bạn")
    expect(page.get_by_text("điện thoại")).to_be_visible()
    assert fits_width(page)
    screenshot(page, "73-vi-account", full_page=True)
