"""QR codes as the pages draw them: inline SVG from segno, no script, no style attribute
(the page's CSP allows neither), dark on a white quiet zone so any camera reads them."""

from __future__ import annotations

import segno


def qr_svg(text: str, title: str) -> str:
    """`text` as a QR code in SVG markup, titled for screen readers."""
    return segno.make(text, error="m").svg_inline(
        scale=4, border=2, dark="#000000", light="#ffffff", omitsize=True, title=title
    )
