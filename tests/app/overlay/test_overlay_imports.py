"""The overlay's menu and the settings dialog get the overlay's limits from ``app.overlay_options``,
not from the overlay: importing either does not import the overlay (no cycle between them)."""

import subprocess
import sys


def test_the_menu_and_the_settings_pages_do_not_import_the_overlay():
    code = (
        "import sys\n"
        "import app.overlay.menu, app.dialogs.settings_pages\n"
        "print('app.overlay.caption_overlay' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_the_menu_offers_the_limits_the_settings_page_allows(qtbot):
    from app.dialogs.settings_pages import OverlayPage
    from app.overlay_options import MAX_FONT, MAX_LINES, MIN_FONT, MIN_LINES

    page = OverlayPage()
    qtbot.addWidget(page)
    assert (page.lines.minimum(), page.lines.maximum()) == (MIN_LINES, MAX_LINES)
    assert (page.font_size.minimum(), page.font_size.maximum()) == (MIN_FONT, MAX_FONT)
