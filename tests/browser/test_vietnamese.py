"""The Vietnamese UI: the switch sticks, labels are translated, and 360 px still fits."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import fits_width, sign_in
from tracker.access import Actor
from tracker.models import Deal
from tracker.services import deal_tap

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_vietnamese_sticks_and_fits_a_phone(phone, table_of_four, screenshot):
    session, players = table_of_four
    page = phone
    page.goto("/")
    page.get_by_role("button", name="Tiếng Việt").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Ghi điểm Tiến lên ngay tại bàn")
    expect(page.locator("html")).to_have_attribute("lang", "vi")

    # The choice sticks across pages: the sign-in page is Vietnamese too.
    page.get_by_role("link", name="Đăng nhập").first.click()
    page.get_by_label("Tên đăng nhập").fill("host")
    page.get_by_label("Mật khẩu").fill("table-of-four")
    page.get_by_role("button", name="Đăng nhập").last.click()
    page.goto(f"/sessions/{session.pk}/")
    expect(page.locator(".tap__opening")).to_have_text(
        "Cả bàn chọn người chia · Ai có 3♠ đánh trước"
    )
    for name in ("Alice", "Cara"):
        page.locator(".player__tap").filter(has_text=name).click()
        expect(page.locator(".player__tap").filter(has_text=name)).to_be_disabled()
    expect(page.locator(".player__tap").filter(has_text="Alice").locator(".badge")).to_have_text(
        "Nhất"
    )
    expect(page.locator(".button--undo")).to_contain_text("Hoàn tác: Cara về Nhì")
    assert fits_width(page)
    screenshot(page, "30-vi-tap")

    page.locator(".action__button", has_text="Chặt heo").click()
    assert fits_width(page)
    screenshot(page, "31-vi-sheet")
    page.locator(".action[open] .sheet__close").click()

    page.locator(".player__tap").filter(has_text="Ben").click()
    expect(page.locator(".last-deal__summary")).to_have_text(
        "Ván 1: Alice 3 · Cara 2 · Ben 1 · Dev trả mỗi người 1,00 USD (bét trả)"
    )
    screenshot(page, "32-vi-tap-next-deal")

    # Another phone taps Dev out; this screen has not caught up and taps Dev too. The
    # refusal comes from the rules, in Vietnamese like the rest of the screen.
    # The page is hidden a moment (the phone in a pocket): it closes its live stream, so
    # it cannot catch up before the click.
    page.evaluate(
        """() => {
            Object.defineProperty(document, "visibilityState", { value: "hidden" });
            document.dispatchEvent(new Event("visibilitychange"));
        }"""
    )
    deal = session.deals.get(status=Deal.Status.OPEN)
    deal_tap(deal_id=deal.pk, player_id=players["Dev"].pk, actor=Actor(user=session.created_by))
    page.locator(".player__tap").filter(has_text="Dev").click()
    expect(page.get_by_role("alert")).to_have_text("Chưa lưu: Dev đã về rồi (Nhất).")
    assert fits_width(page)
    screenshot(page, "38-vi-tap-refused")

    page.goto(f"/sessions/{session.pk}/players/")
    expect(page.get_by_text("Ván 2 đã bắt đầu", exact=False)).to_be_visible()
    assert fits_width(page)
    screenshot(page, "39-vi-players")

    for path, name in (
        ("standings/", "33-vi-standings"),
        ("deals/", "34-vi-deals"),
        ("settle/", "35-vi-settle"),
        ("share/", "36-vi-share"),
    ):
        page.goto(f"/sessions/{session.pk}/{path}")
        assert fits_width(page), path
        screenshot(page, name)
    expect(page.get_by_role("link", name="Xếp hạng")).to_be_visible()

    page.goto(f"/circles/{session.circle_id}/sessions/new/")
    assert fits_width(page)
    screenshot(page, "37-vi-new-session", full_page=True)


ALIKE = [
    "Nguyễn Thị Minh Khai Phương Hoàng Lan Vy",
    "Nguyễn Thị Minh Khai Phương Hoàng Lan Hà",
    "Nguyễn Thị Minh Khai Phương Hoàng Lan My",
    "Nguyễn Thị Minh Khai Phương Hoàng Lan Tú",
]


def test_an_instant_win_s_save_counts_the_payments_and_covers_no_chip_at_320(
    new_phone, make_session, screenshot
):
    """Save named each of an instant win's three payments, two 40-character names apiece:
    a button of twelve lines over the chips just picked (session 25's review). It counts
    them ("3 người trả … mỗi người") and stays a few lines, under the chips."""
    from scoring import Options

    session, _players = make_session(
        players=ALIKE, stake="10000", currency="VND", options=Options(instant_wins=True)
    )
    page = new_phone("vi-VN", viewport={"width": 320, "height": 568})
    sign_in(page, "host", "table-of-four")
    page.goto(f"/sessions/{session.pk}/")

    page.locator(".action__button", has_text="Tới trắng").click()
    sheet = page.locator(".action[open] .sheet")
    claimant = sheet.locator("label.chip", has_text=ALIKE[2])
    claimant.click()
    kind = sheet.locator("input[name=kind]").first.locator("xpath=..")
    kind.click()
    save = sheet.locator(".sheet__save button")
    expect(save).to_contain_text(f"3 người trả {ALIKE[2]} ")
    expect(save).to_contain_text("mỗi người")
    assert save.evaluate("(e) => e.getBoundingClientRect().height") < 150
    kind.scroll_into_view_if_needed()
    box = kind.bounding_box()
    hit = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('label')?.textContent.trim()",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert hit == kind.text_content().strip()  # the chip itself, not Save over it
    assert fits_width(page)
    screenshot(page, "31-vi-instant-win-save")
