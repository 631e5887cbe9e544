"""VietQR payloads (scoring.vietqr), checked against published examples and read back by a
real QR decoder, so a banking app would read what the settle-up screen draws."""

import shutil
import subprocess
from decimal import Decimal

import pytest
import segno
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import vietqr
from scoring.paylinks import PayLink, PayLinkError, checked_link, link_to_pay

# Published examples: github.com/subiz/vietqr, a VietQR generator whose README and
# vietqr_test.go list these payloads (README: "Sinh mã chuyển khoản 120.000 vào STK
# 0011001932418 ngân hàng Vietin với ghi chú 'ủng hộ lũ lụt'"; vietqr_test.go: the
# static code for TPBank account 0099999999 and the MB codes for 40,123 dong).
PUBLISHED = [
    (
        {"bank_bin": "970423", "account": "0099999999"},
        "00020101021138540010A00000072701240006970423011000999999990208QRIBFTTA"
        "53037045802VN6304CBB4",
    ),
    (
        {
            "bank_bin": "970422",
            "account": "0023457923442",
            "amount": 40123,
            "note": "test text string",
        },
        "00020101021238570010A00000072701270006970422011300234579234420208QRIBFTTA"
        "53037045405401235802VN62200816test text string6304D9C6",
    ),
    (
        {"bank_bin": "970422", "account": "0023457923442", "amount": 40123, "note": "chuyển khoản"},
        "00020101021238570010A00000072701270006970422011300234579234420208QRIBFTTA"
        "53037045405401235802VN62160812chuyen khoan6304722F",
    ),
    (
        {
            "bank_bin": "970415",
            "account": "0011001932418",
            "amount": 120000,
            "note": "ủng hộ lũ lụt",
        },
        "00020101021238570010A00000072701270006970415011300110019324180208QRIBFTTA"
        "530370454061200005802VN62170813ung ho lu lut6304C15C",
    ),
]


@pytest.mark.parametrize(("fields", "published"), PUBLISHED)
def test_payloads_equal_the_published_examples(fields, published):
    assert vietqr.payload(**fields) == published


@pytest.mark.parametrize(("fields", "published"), PUBLISHED)
def test_a_payload_reads_back_to_what_made_it(fields, published):
    said = vietqr.read(published)

    assert (said["bin"], said["account"], said["service"]) == (
        fields["bank_bin"],
        fields["account"],
        "QRIBFTTA",
    )
    assert (said["currency"], said["country"], said["format"]) == ("704", "VN", "01")
    assert said.get("amount") == (str(fields["amount"]) if "amount" in fields else None)
    assert said["initiation"] == ("12" if "amount" in fields else "11")


def test_the_crc_is_ccitt_false():
    # The CRC-16/CCITT-FALSE check value: "123456789" gives 29B1.
    assert vietqr.crc16("123456789") == "29B1"


def test_a_changed_payload_fails_its_crc():
    payload = PUBLISHED[1][1].replace("40123", "90123")

    with pytest.raises(vietqr.VietQRError, match="CRC"):
        vietqr.read(payload)


def test_notes_are_plain_ascii_and_short():
    assert vietqr.ascii_note("Tối thứ Sáu ở nhà Đặng → Ngô") == "Toi thu Sau o nha Dang Ng"
    assert vietqr.transfer_note("Fri", "Bo", "Al") == "SquareScores Fri Bo>Al"
    assert vietqr.transfer_note("Friday table", "Ben", "Alice") == "Friday table Ben>Alice"
    assert vietqr.transfer_note("Sinh nhật Đặng", "Nguyễn Văn Bình", "Lê Thị Hoa") == (
        "Sinh nhat Dang Binh>Hoa"
    )
    assert vietqr.transfer_note("Tết", "Ben", "Alice") == "Tet Ben>Alice"
    assert len(vietqr.transfer_note("x" * 80, "y" * 40, "z" * 40)) == 25


FAMILY = [
    "Nguyễn Thị Minh Khai Lan Vy",
    "Nguyễn Thị Minh Khai Lan Anh",
    "Nguyễn Thị Minh Khai Phương",
]


def test_a_long_name_in_a_note_is_said_by_the_last_words_that_tell_it_apart():
    """Cut from the front, three of one family paying Hoa all read "Nguyen Thi Minh Khai
    L>" or alike: Hoa could not tell who had paid, and her own name was gone."""
    table = [*FAMILY, "Lê Thị Hoa"]
    notes = [vietqr.transfer_note("Tối thứ Sáu", payer, "Lê Thị Hoa", table) for payer in FAMILY]
    assert notes == ["Toi thu Sau Vy>Hoa", "Toi thu Sau Anh>Hoa", "Toi thu Sau Phuong>Hoa"]
    # Alike in the note is alike ("Lân" is written "Lan"): said whole, as far as it goes.
    twins = ["Trần Văn Lân Vy Minh Khoa", "Trần Văn Lan Vy Minh Khoa", "Phạm Bảo"]
    assert vietqr.transfer_note("Tết", twins[0], "Phạm Bảo", twins) == "Tran Van Lan Vy Minh>Bao"
    # Two names that do not fit even so: the payee is cut first, the payer kept longest.
    note = vietqr.transfer_note("Fri", "A" * 40, FAMILY[0], [*FAMILY, "A" * 40])
    assert note == "AAAAAAAAAAAAAAAAAAAAAA>Vy"
    for payer in FAMILY:
        for payee in FAMILY:
            if payer != payee:
                assert len(vietqr.transfer_note("x" * 80, payer, payee, FAMILY)) <= 25


@pytest.mark.parametrize(
    ("amount", "dong"),
    [("50000", 50000), ("50000.000", 50000), ("0.5", None), ("12.345", None), ("0", None)],
)
def test_only_whole_dong_go_into_a_code(amount, dong):
    assert vietqr.whole_dong(Decimal(amount)) == dong


@pytest.mark.parametrize(
    "fields",
    [
        {"bank_bin": "97042", "account": "1"},
        {"bank_bin": "970422", "account": "12345678901234567890"},
        {"bank_bin": "970422", "account": "12 34"},
        {"bank_bin": "970422", "account": "1", "amount": 0},
    ],
)
def test_what_no_bank_would_read_is_refused(fields):
    with pytest.raises(vietqr.VietQRError):
        vietqr.payload(**fields)


def test_the_bank_list_has_one_bank_a_bin():
    assert len(vietqr.BANKS_BY_BIN) == len(vietqr.BANKS)
    assert vietqr.BANKS_BY_BIN["970436"].short_name == "Vietcombank"
    assert all(vietqr.BIN.fullmatch(bank.bin) for bank in vietqr.BANKS)


@settings(max_examples=200, deadline=None)
@given(
    bank=st.sampled_from(vietqr.BANKS),
    account=st.from_regex(r"[A-Za-z0-9]{1,19}", fullmatch=True),
    amount=st.none() | st.integers(1, 10**13 - 1),
    note=st.text(max_size=40),
)
def test_any_payload_reads_back(bank, account, amount, note):
    payload = vietqr.payload(bank_bin=bank.bin, account=account, amount=amount, note=note)

    said = vietqr.read(payload)

    assert (said["bin"], said["account"], said.get("amount")) == (
        bank.bin,
        account,
        None if amount is None else str(amount),
    )
    assert said.get("note", "") == vietqr.ascii_note(note)
    assert payload.isascii()


# --- A real decoder reads what segno draws ------------------------------------------------

ZBARIMG = shutil.which("zbarimg")


def decoded(path) -> str:
    """What zbar (Debian's zbar-tools) reads from the image: one code, its text."""
    result = subprocess.run(
        [ZBARIMG, "--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", str(path)],
        capture_output=True,
        check=True,
        text=True,
    )
    return result.stdout.rstrip("\n")


@pytest.mark.skipif(ZBARIMG is None, reason="needs zbarimg (apt-get install zbar-tools)")
@pytest.mark.parametrize(("fields", "published"), PUBLISHED)
def test_a_qr_decoder_reads_the_payload_segno_draws(tmp_path, fields, published):
    path = tmp_path / "vietqr.png"
    segno.make(vietqr.payload(**fields), error="m").save(path, scale=6, border=4)

    assert decoded(path) == published


# --- Payment links ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("link", "amount", "currency", "paid_by"),
    [
        (
            "https://paypal.me/alice",
            "12.50",
            "EUR",
            PayLink("https://paypal.me/alice/12.50EUR", True),
        ),
        (
            "https://www.paypal.me/alice/",
            "3",
            "USD",
            PayLink("https://paypal.me/alice/3.00USD", True),
        ),
        (
            "https://venmo.com/u/Alice-W",
            "7.25",
            "USD",
            PayLink("https://venmo.com/Alice-W?txn=pay&amount=7.25&note=Friday", True),
        ),
        (
            "https://venmo.com/u/Alice-W",
            "7.25",
            "EUR",
            PayLink("https://venmo.com/u/Alice-W", False),
        ),
        ("https://revolut.me/alice", "5", "EUR", PayLink("https://revolut.me/alice", False)),
        ("https://me.momo.vn/alice", "50000", "VND", PayLink("https://me.momo.vn/alice", False)),
        ("https://paypal.me/alice", "0.375", "USD", PayLink("https://paypal.me/alice", False)),
    ],
)
def test_links_carry_the_amount_where_the_service_takes_it(link, amount, currency, paid_by):
    assert link_to_pay(link, Decimal(amount), currency, "Friday") == paid_by


@pytest.mark.parametrize(
    "link",
    [
        "javascript:alert(1)",
        "http://paypal.me/alice",
        "https://",
        "https://paypal.me/al ice",
        "https://user:pass@paypal.me/alice",
        "https://paypal.me/" + "a" * 200,
        "paypal.me/alice",
    ],
)
def test_only_https_links_are_kept(link):
    with pytest.raises(PayLinkError):
        checked_link(link)


def test_a_link_is_kept_as_pasted_less_its_spaces():
    assert checked_link("  https://revolut.me/alice  ") == "https://revolut.me/alice"
