"""CSV files a spreadsheet opens safely: every CSV the app writes goes through here.

- A text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return would be
  read by Excel, LibreOffice or Google Sheets as a formula (a player named
  `=HYPERLINK(...)`, added through a scorer link, would become a live link in whoever
  opens the leaderboard). Such a cell is written with a leading apostrophe, which the
  spreadsheet shows as text (OWASP, "CSV Injection"). Numbers are left as they are:
  `-3.00` is a debt, not a formula.
- The file starts with a UTF-8 byte-order mark, so Excel reads it as UTF-8 and shows
  Vietnamese names as they are written.

Imports nothing of the app.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

BOM = "\ufeff"
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"[+-]?[0-9]+(\.[0-9]+)?")


def cell(value: Any) -> Any:
    """A value as a safe cell: numbers as they are, text that a spreadsheet would run
    as a formula behind an apostrophe, None as empty."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float | Decimal):
        return value
    text = str(value)
    if text.startswith(FORMULA_STARTS) and not NUMBER.fullmatch(text):
        return "'" + text
    return text


def csv_text(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> str:
    """The CSV of `rows` under `header`: a byte-order mark first, every cell made safe."""
    out = io.StringIO()
    out.write(BOM)
    writer = csv.writer(out)
    writer.writerow([cell(name) for name in header])
    for row in rows:
        writer.writerow([cell(value) for value in row])
    return out.getvalue()
