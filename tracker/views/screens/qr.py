"""QR codes for links handed round the table: share links and invites."""

from __future__ import annotations

import segno


def qr_svg(url: str, title: str) -> str:
    """The QR code as inline SVG markup: no script, no style attribute."""
    return str(
        segno.make(url, error="m").svg_inline(
            scale=4, border=2, dark="#000000", light="#ffffff", omitsize=True, title=title
        )
    )
