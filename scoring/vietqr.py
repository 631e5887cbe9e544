"""VietQR: what a Vietnamese banking app reads from a transfer QR code.

VietQR is NAPAS's profile of the EMVCo merchant-presented QR code (EMV QRCPS). The
payload is a string of data objects, each an ID (2 digits), a length (2 digits) and a
value; a template's value is data objects again. For a transfer to a bank account:

- 00 payload format indicator: "01";
- 01 point of initiation: "11" static (the payer types the amount), "12" dynamic (this
  amount, once);
- 38 merchant account information, NAPAS's template: 00 its GUID "A000000727"; 01 the
  beneficiary, itself 00 the bank's BIN (6 digits) and 01 the account number (up to
  19 letters or digits); 02 the service code "QRIBFTTA" (a transfer to an account);
- 53 transaction currency: "704" (VND, ISO 4217);
- 54 transaction amount: whole dong, only when there is one;
- 58 country code: "VN";
- 62 additional data: 08 purpose of transaction, the note (ASCII, up to 25 characters);
- 63 CRC: CRC-16/CCITT-FALSE (polynomial 0x1021, start 0xFFFF) of everything before
  it, "6304" included, as 4 upper-case hex digits.

Notes are written in plain ASCII without Vietnamese accents (banks' transfer notes do not
take them; "Đặng" becomes "Dang"), as the apps that make VietQR codes do. Plain Python:
this module knows nothing of Django or of the app's rows.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from scoring.names import last_words_told_apart

NAPAS_GUID = "A000000727"
TO_ACCOUNT = "QRIBFTTA"
VND = "704"
COUNTRY = "VN"
STATIC, DYNAMIC = "11", "12"
LONGEST_NOTE = 25
LONGEST_ACCOUNT = 19
ACCOUNT = re.compile(r"[A-Za-z0-9]{1,19}")
BIN = re.compile(r"[0-9]{6}")


class VietQRError(ValueError):
    """A payload that cannot be made or read; the message says why."""


@dataclass(frozen=True)
class Bank:
    bin: str  # the NAPAS bank identification number (BIN) the payload names
    short_name: str  # what people call it
    name: str  # its name in Vietnamese


# Banks on NAPAS 247 with their BINs, from the State Bank of Vietnam's list of bank
# identification numbers (the list subiz/vietqr keeps as bank.csv) and the short names
# the banks go by. Ordered by short name, as the payment details form lists them.
BANKS: tuple[Bank, ...] = tuple(
    sorted(
        (
            Bank("970425", "ABBANK", "Ngân hàng TMCP An Bình"),
            Bank("970416", "ACB", "Ngân hàng TMCP Á Châu"),
            Bank("970405", "Agribank", "Ngân hàng Nông nghiệp và Phát triển Nông thôn Việt Nam"),
            Bank("970409", "BacABank", "Ngân hàng TMCP Bắc Á"),
            Bank("970438", "BaoViet Bank", "Ngân hàng TMCP Bảo Việt"),
            Bank("970418", "BIDV", "Ngân hàng TMCP Đầu tư và Phát triển Việt Nam"),
            Bank("970454", "BVBank", "Ngân hàng TMCP Bản Việt"),
            Bank("970444", "CB", "Ngân hàng TM TNHH MTV Xây dựng Việt Nam"),
            Bank("970446", "Co-opBank", "Ngân hàng Hợp tác xã Việt Nam"),
            Bank("970406", "DongA Bank", "Ngân hàng TMCP Đông Á"),
            Bank("970431", "Eximbank", "Ngân hàng TMCP Xuất Nhập khẩu Việt Nam"),
            Bank("970408", "GPBank", "Ngân hàng TM TNHH MTV Dầu Khí Toàn Cầu"),
            Bank("970437", "HDBank", "Ngân hàng TMCP Phát triển TP. Hồ Chí Minh"),
            Bank("970442", "Hong Leong", "Ngân hàng TNHH MTV Hong Leong Việt Nam"),
            Bank("970455", "IBK Hà Nội", "Ngân hàng Công nghiệp Hàn Quốc, chi nhánh Hà Nội"),
            Bank("970456", "IBK HCM", "Ngân hàng Công nghiệp Hàn Quốc, chi nhánh TP. HCM"),
            Bank("970434", "Indovina", "Ngân hàng TNHH Indovina"),
            Bank("970452", "KienlongBank", "Ngân hàng TMCP Kiên Long"),
            Bank("970449", "LPBank", "Ngân hàng TMCP Lộc Phát Việt Nam"),
            Bank("970422", "MB", "Ngân hàng TMCP Quân đội"),
            Bank("970426", "MSB", "Ngân hàng TMCP Hàng Hải"),
            Bank("970428", "Nam A Bank", "Ngân hàng TMCP Nam Á"),
            Bank("970419", "NCB", "Ngân hàng TMCP Quốc Dân"),
            Bank("970414", "OceanBank", "Ngân hàng TM TNHH MTV Đại Dương"),
            Bank("970448", "OCB", "Ngân hàng TMCP Phương Đông"),
            Bank("970430", "PGBank", "Ngân hàng TMCP Thịnh vượng và Phát triển"),
            Bank("970439", "Public Bank", "Ngân hàng TNHH MTV Public Việt Nam"),
            Bank("970412", "PVcomBank", "Ngân hàng TMCP Đại Chúng Việt Nam"),
            Bank("970403", "Sacombank", "Ngân hàng TMCP Sài Gòn Thương Tín"),
            Bank("970400", "SaigonBank", "Ngân hàng TMCP Sài Gòn Công Thương"),
            Bank("970429", "SCB", "Ngân hàng TMCP Sài Gòn"),
            Bank("970440", "SeABank", "Ngân hàng TMCP Đông Nam Á"),
            Bank("970443", "SHB", "Ngân hàng TMCP Sài Gòn - Hà Nội"),
            Bank("970424", "Shinhan Bank", "Ngân hàng TNHH MTV Shinhan Việt Nam"),
            Bank("970410", "Standard Chartered", "Ngân hàng TNHH MTV Standard Chartered"),
            Bank("970407", "Techcombank", "Ngân hàng TMCP Kỹ thương Việt Nam"),
            Bank("970423", "TPBank", "Ngân hàng TMCP Tiên Phong"),
            Bank("970427", "VietABank", "Ngân hàng TMCP Việt Á"),
            Bank("970433", "VietBank", "Ngân hàng TMCP Việt Nam Thương Tín"),
            Bank("970436", "Vietcombank", "Ngân hàng TMCP Ngoại thương Việt Nam"),
            Bank("970415", "VietinBank", "Ngân hàng TMCP Công thương Việt Nam"),
            Bank("970441", "VIB", "Ngân hàng TMCP Quốc tế Việt Nam"),
            Bank("970432", "VPBank", "Ngân hàng TMCP Việt Nam Thịnh Vượng"),
            Bank("970421", "VRB", "Ngân hàng Liên doanh Việt - Nga"),
        ),
        key=lambda bank: bank.short_name.lower(),
    )
)
BANKS_BY_BIN = {bank.bin: bank for bank in BANKS}


# --- Making a payload -------------------------------------------------------------------


def data_object(tag: str, value: str) -> str:
    """One EMVCo data object: ID, 2-digit length, value (at most 99 characters)."""
    if len(value) > 99:
        raise VietQRError(f"Data object {tag} is {len(value)} characters long; 99 at most.")
    return f"{tag}{len(value):02d}{value}"


def crc16(data: str) -> str:
    """CRC-16/CCITT-FALSE of `data` (ASCII) as 4 upper-case hex digits."""
    crc = 0xFFFF
    for byte in data.encode("ascii"):
        crc ^= byte << 8
        for _ in range(8):
            crc = (crc << 1) ^ 0x1021 if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return f"{crc:04X}"


def ascii_note(text: str, longest: int = LONGEST_NOTE) -> str:
    """Text as a transfer note: Vietnamese accents taken off ("Đặng" -> "Dang"), anything
    outside printable ASCII dropped, spaces tidied, at most `longest` characters."""
    text = text.replace("Đ", "D").replace("đ", "d")
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    plain = re.sub(r"[^ -~]", "", plain)
    return " ".join(plain.split())[:longest].strip()


def transfer_note(session: str, payer: str, payee: str, table: Iterable[str] = ()) -> str:
    """The note a transfer's QR code carries: "SquareScores <session> <payer>><payee>"
    in 25 ASCII characters at most. Who pays whom matters most, so when it does not fit
    "SquareScores" goes first, then the session's name is shortened, then the names are
    said by their fewest last words that no other name of `table` (the names paying and
    paid) ends with, as the note writes them ("Nguyen Thi Minh Khai Lan Vy" and "Nguyen
    Thi Minh Khai Lan Anh" pay "Le Thi Hoa": "Vy>Hoa", "Anh>Hoa"); only then is a name
    cut, the payee's first. Cut by letters, three of one family paying one payee all
    read "Nguyen Thi Minh Khai Lan" and the payee could not tell who had paid."""
    names = (payer, payee)
    who = f"{ascii_note(payer, 99)}>{ascii_note(payee, 99)}"
    night = ascii_note(session, 99)
    for note in (f"SquareScores {night} {who}", f"{night} {who}"):
        if len(note) <= LONGEST_NOTE:
            return note
    if LONGEST_NOTE - len(who) - 1 < 3:
        others = [name for name in table if name not in names] + list(names)
        short = [_said_short(name, [other for other in others if other != name]) for name in names]
        payer_said, payee_said = short
        if len(payer_said) + 1 + len(payee_said) > LONGEST_NOTE:
            payee_said = payee_said[: max(LONGEST_NOTE - 1 - len(payer_said), 5)].strip()
            payer_said = payer_said[: LONGEST_NOTE - 1 - len(payee_said)].strip()
        who = f"{payer_said}>{payee_said}"
    room = LONGEST_NOTE - len(who) - 1
    if room >= 3:
        return f"{night[:room].strip()} {who}"
    return who


def _said_short(name: str, others: list[str]) -> str:
    """`name` as a note writes it, by its fewest last words told apart from `others`
    (compared as the note writes them too: "Lân" and "Lan" are alike there)."""
    plain = ascii_note(name, 99)
    tail = last_words_told_apart(
        plain, others, compared=lambda text: ascii_note(text, 99).casefold()
    )
    return plain if tail is None else tail


def whole_dong(amount: Decimal | None) -> int | None:
    """An amount as the QR code carries it (whole dong), or None when it has a fraction
    of a dong or is not more than 0: the code then leaves the amount to the payer."""
    if amount is None or amount <= 0 or amount != amount.to_integral_value():
        return None
    return int(amount)


def payload(*, bank_bin: str, account: str, amount: int | None = None, note: str = "") -> str:
    """The VietQR payload of a transfer to `account` at the bank `bank_bin`: with an
    amount in whole dong (dynamic), or without one (static); with a note, if any."""
    if not BIN.fullmatch(bank_bin):
        raise VietQRError(f"A bank BIN is 6 digits, not {bank_bin!r}.")
    if not ACCOUNT.fullmatch(account):
        raise VietQRError(f"An account number is 1 to 19 letters or digits, not {account!r}.")
    if amount is not None and not 0 < amount < 10**13:
        raise VietQRError(f"An amount is more than 0 and at most 13 digits, not {amount}.")
    note = ascii_note(note)
    beneficiary = data_object("00", bank_bin) + data_object("01", account)
    merchant = (
        data_object("00", NAPAS_GUID)
        + data_object("01", beneficiary)
        + data_object("02", TO_ACCOUNT)
    )
    body = (
        data_object("00", "01")
        + data_object("01", STATIC if amount is None else DYNAMIC)
        + data_object("38", merchant)
        + data_object("53", VND)
        + (data_object("54", str(amount)) if amount is not None else "")
        + data_object("58", COUNTRY)
        + (data_object("62", data_object("08", note)) if note else "")
        + "6304"
    )
    return body + crc16(body)


# --- Reading one back -------------------------------------------------------------------


def data_objects(text: str) -> dict[str, str]:
    """The data objects of a payload (or of a template's value), by ID."""
    objects: dict[str, str] = {}
    at = 0
    while at < len(text):
        tag, length = text[at : at + 2], text[at + 2 : at + 4]
        if len(tag) < 2 or not length.isdigit() or at + 4 + int(length) > len(text):
            raise VietQRError(f"A data object at {at} runs past the end.")
        objects[tag] = text[at + 4 : at + 4 + int(length)]
        at += 4 + int(length)
    return objects


def read(text: str) -> dict[str, str]:
    """What a payload says, checked against its CRC: `bin`, `account`, `service`,
    `currency`, `country`, `initiation`, and `amount` and `note` when it has them."""
    if len(text) < 8 or text[-8:-4] != "6304" or crc16(text[:-4]) != text[-4:].upper():
        raise VietQRError("The payload's CRC does not match.")
    top = data_objects(text)
    merchant = data_objects(top["38"])
    if merchant.get("00") != NAPAS_GUID:
        raise VietQRError("This is not a NAPAS VietQR payload.")
    beneficiary = data_objects(merchant["01"])
    said = {
        "format": top["00"],
        "initiation": top["01"],
        "bin": beneficiary["00"],
        "account": beneficiary["01"],
        "service": merchant["02"],
        "currency": top["53"],
        "country": top["58"],
    }
    if "54" in top:
        said["amount"] = top["54"]
    if "62" in top and "08" in data_objects(top["62"]):
        said["note"] = data_objects(top["62"])["08"]
    return said
