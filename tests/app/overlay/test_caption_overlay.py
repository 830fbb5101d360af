"""The caption overlay (offscreen Qt): window flags, click-through, rolling lines, per-screen memory,
and the caption colours of the theme it draws with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QSettings, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QGuiApplication, QImage, QMouseEvent, QPainter
from PySide6.QtWidgets import QApplication, QWidget

from app import settings as keys
from app.overlay import geometry as og
from app.overlay.caption_layout import CaptionLayout
from app.overlay.caption_overlay import CaptionOverlay
from app.settings import AppSettings
from app.theme import ThemeWatcher, caption_colors, contrast_ratio, dark_palette, is_dark, light_palette
from tests.app.pixels import rgb

pytestmark = [pytest.mark.gui]

ROOT = Path(__file__).resolve().parents[3]
BASES = [
    "so",
    "we",
    "should",
    "probably",
    "ship",
    "the",
    "caption",
    "overlay",
    "before",
    "Friday",
    "because",
    "accessibility",
    "matters",
    "a",
    "lot",
    "to",
    "everyone",
    "here",
]


def words(n: int, start: int = 0) -> list[str]:
    """Unique words of varied length ("so0", "accessibility11", ...), so positions can be checked."""
    return [f"{BASES[i % len(BASES)]}{i}" for i in range(start, start + n)]


@pytest.fixture
def ini(tmp_path) -> Path:
    return tmp_path / "livecap.ini"


def make_settings(ini: Path) -> AppSettings:
    return AppSettings(QSettings(str(ini), QSettings.Format.IniFormat))


@pytest.fixture
def settings(ini) -> AppSettings:
    return make_settings(ini)


@pytest.fixture
def overlay(qtbot, settings) -> CaptionOverlay:
    widget = CaptionOverlay(settings)
    qtbot.addWidget(widget)
    return widget


def available_width(overlay: CaptionOverlay) -> float:
    return overlay.width() - 2 * overlay.PAD_X


def line_words(overlay: CaptionOverlay) -> list[str]:
    return [w for line in overlay.laid_out_lines() for w in line.text.split()]


# -- window ------------------------------------------------------------------------------------


def test_window_flags(overlay):
    flags = overlay.windowFlags()
    assert flags & Qt.WindowType.FramelessWindowHint
    assert flags & Qt.WindowType.WindowStaysOnTopHint
    assert flags & Qt.WindowType.WindowType_Mask == Qt.WindowType.Tool  # no taskbar entry
    assert flags & Qt.WindowType.WindowDoesNotAcceptFocus  # never steals typing from the meeting
    assert not flags & Qt.WindowType.WindowTransparentForInput
    assert overlay.testAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
    assert overlay.testAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
    assert overlay.accessibleName() == "Caption overlay"


def test_click_through_sets_clears_and_persists(qtbot, overlay, ini):
    overlay.show()
    qtbot.waitExposed(overlay)
    overlay.setGeometry(40, 50, 420, overlay.height())
    before = QRect(overlay.geometry())
    visibility, changes = [], []
    overlay.visibility_changed.connect(visibility.append)
    overlay.click_through_changed.connect(changes.append)

    overlay.set_click_through(True)
    assert overlay.windowFlags() & Qt.WindowType.WindowTransparentForInput
    assert overlay.isVisible() and overlay.geometry() == before  # re-shown where it was
    assert overlay.windowFlags() & Qt.WindowType.WindowStaysOnTopHint  # other flags kept
    assert make_settings(ini).get(keys.OVERLAY_CLICK_THROUGH) is True
    overlay.toggle_click_through()
    assert not overlay.windowFlags() & Qt.WindowType.WindowTransparentForInput
    assert overlay.isVisible() and overlay.geometry() == before
    assert make_settings(ini).get(keys.OVERLAY_CLICK_THROUGH) is False
    assert changes == [True, False]
    assert visibility == []  # re-creating the native window is not "hidden" for listeners

    make_settings(ini).set(keys.OVERLAY_CLICK_THROUGH, True)
    again = CaptionOverlay(make_settings(ini))  # a new session starts in click-through mode
    qtbot.addWidget(again)
    assert again.is_click_through() and again.windowFlags() & Qt.WindowType.WindowTransparentForInput


def test_click_through_action_is_a_shortcut_kept_in_sync(qtbot, overlay):
    window = QWidget()
    qtbot.addWidget(window)
    action = overlay.click_through_action(window)
    assert action.shortcut().toString() == "Ctrl+Shift+T"
    assert action.shortcutContext() == Qt.ShortcutContext.ApplicationShortcut
    assert action in window.actions() and action.isCheckable() and not action.isChecked()
    action.trigger()
    assert overlay.is_click_through() and action.isChecked()
    overlay.set_click_through(False)  # e.g. from the tray: the action follows
    assert not action.isChecked()


def test_visibility_changed(qtbot, overlay):
    with qtbot.waitSignal(overlay.visibility_changed) as shown:
        overlay.show()
    assert shown.args == [True]
    with qtbot.waitSignal(overlay.visibility_changed) as hidden:
        overlay.hide()
    assert hidden.args == [False]


# -- lines --------------------------------------------------------------------------------------


def check_roll(overlay: CaptionOverlay, updates, all_words_at) -> None:
    """Feed ``updates``; after each: at most N lines, each fitting the width, showing a contiguous
    tail of the words, and a line that is no longer the newest never changes afterwards."""
    metrics = [QFontMetricsF(font) for font in overlay.fonts()]  # settled, provisional
    finished: dict[str, str] = {}  # first word of a line that was not the newest -> its text
    for step, (settled, provisional) in enumerate(updates):
        overlay.set_captions(settled, provisional)
        lines = overlay.laid_out_lines()
        n = overlay.style_values().lines
        assert 1 <= len(lines) <= n
        for line in lines:  # measured independently of the layout's own bookkeeping
            drawn = line.runs[-1].x + metrics[line.runs[-1].provisional].horizontalAdvance(line.runs[-1].text)
            assert line.width <= available_width(overlay) + 0.5 and drawn <= available_width(overlay) + 0.5
        shown = line_words(overlay)
        everything = all_words_at(step)
        assert shown == everything[len(everything) - len(shown) :], "not a contiguous tail of the text"
        for line in lines[:-1]:
            first = line.text.split()[0]
            assert finished.setdefault(first, line.text) == line.text, "a finished line was re-wrapped"
    assert len(overlay.laid_out_lines()) == overlay.style_values().lines


def test_lines_roll_word_by_word_and_only_the_last_n_are_laid_out(overlay):
    overlay.resize(520, overlay.height())
    overlay.set_lines(2)
    text = words(150)
    updates = [(" ".join(text[:i]), " ".join(text[i : i + 3])) for i in range(1, len(text) - 3)]
    check_roll(overlay, updates, lambda step: text[: step + 4])
    assert line_words(overlay)[-1] == updates[-1][1].split()[-1]  # the newest word is on the last line


@pytest.mark.parametrize("lines", [1, 3, 4])
def test_lines_setting_limits_the_lines(overlay, lines):
    overlay.set_lines(lines)
    overlay.set_captions(" ".join(words(80)), "")
    assert len(overlay.laid_out_lines()) == lines


def test_sliding_window_of_recent_text_keeps_lines_stable(overlay):
    # A caller may pass only recent text (a window that drops words at the front).
    overlay.resize(600, overlay.height())
    text = words(200)
    updates = [(" ".join(text[max(0, i - 25) : i]), "") for i in range(1, len(text))]
    check_roll(overlay, updates, lambda step: text[: step + 1])


@pytest.mark.parametrize("lines", [2, 3])
def test_taking_back_the_last_lines_shows_the_earlier_text_again(overlay, lines):
    # A recognizer's partial words shrink, or its last words are retracted: the overlay scrolls
    # back down to the earlier text rather than leaving its upper lines empty.
    overlay.resize(420, overlay.height())
    overlay.set_lines(lines)
    text = words(60)
    for i in range(20, len(text) + 1):
        overlay.set_captions(" ".join(text[:i]), "")
    shown = overlay.laid_out_lines()
    kept = len(text) - len(shown[-1].text.split()) - len(shown[-2].text.split())
    overlay.set_captions(" ".join(text[:kept]), "")
    assert len(overlay.laid_out_lines()) == lines
    after = line_words(overlay)
    assert after == text[kept - len(after) : kept]


def test_whole_transcript_every_time_is_cheap_and_correct(overlay):
    text = words(20000)  # an hour-long meeting passed in full on each update
    overlay.set_captions(" ".join(text[:-1]), "")
    overlay.set_captions(" ".join(text), "")
    assert line_words(overlay)[-1] == text[-1]
    assert len(overlay.laid_out_lines()) == overlay.style_values().lines


def test_provisional_tail_is_laid_out_and_drawn_differently(qtbot, overlay):
    overlay.resize(900, overlay.height())
    overlay.set_background_opacity(1.0)
    overlay.set_captions("Budget approved.", "next we talk")
    (line,) = overlay.laid_out_lines()
    assert [(r.text, r.provisional) for r in line.runs] == [
        ("Budget approved.", False),
        ("next we talk", True),
    ]
    settled_font, provisional_font = overlay.fonts()
    assert provisional_font.italic() and not settled_font.italic()

    image = overlay.grab().toImage()
    spacing = overlay.line_spacing()
    top = overlay.PAD_Y + (overlay.style_values().lines - 1) * spacing

    def brightest(run) -> QColor:
        x0 = int(overlay.PAD_X + run.x)
        area = rgb(image)[int(top) : int(top + spacing), x0 : int(overlay.PAD_X + run.x + run.width)]
        light = (area.max(axis=-1) + area.min(axis=-1)) // 2  # HSL lightness, as QColor's
        y, x = np.unravel_index(int(light.argmax()), light.shape)
        return QColor(*(int(v) for v in area[y, x]))

    settled, provisional = brightest(line.runs[0]), brightest(line.runs[1])
    assert settled.lightness() >= 250  # pure white
    assert provisional.lightness() < settled.lightness() - 15  # visibly lighter weight, greyer
    assert provisional.lightness() > 150  # yet clearly readable on the dark panel


def test_long_word_is_broken_to_fit(overlay):
    overlay.resize(300, overlay.height())
    overlay.set_lines(4)
    url = "https://example.org/" + "".join(chr(ord("a") + i % 26) for i in range(90))
    overlay.set_captions(f"see {url}", "")
    lines = overlay.laid_out_lines()
    assert len(lines) == 4 and all(line.width <= available_width(overlay) + 0.5 for line in lines)
    shown = "".join(line.text for line in lines)
    assert url.endswith(shown) and len(shown) > 30  # the pieces, in order, nothing lost between them


def test_layout_needs_configure():
    with pytest.raises(RuntimeError, match="configure"):
        CaptionLayout().layout("a", "")


# -- style, menu, mouse -------------------------------------------------------------------------


def test_context_menu_changes_style_and_persists(qtbot, overlay, ini):
    overlay.show()
    qtbot.waitExposed(overlay)

    def act(name):
        menu = overlay.context_menu()
        action = menu.findChild(type(menu.actions()[0]), name)
        assert action is not None, name
        action.trigger()

    height = overlay.height()
    act("lines-4")
    assert overlay.style_values().lines == 4 and overlay.height() > height
    act("font-36")
    act("opacity-0.8")
    stored = make_settings(ini)
    assert (
        stored.get(keys.OVERLAY_LINES),
        stored.get(keys.OVERLAY_FONT_SIZE),
        stored.get(keys.OVERLAY_OPACITY),
    ) == (4, 36, 0.8)
    act("font-larger")
    assert overlay.style_values().font_size == 40
    act("click-through")
    assert overlay.is_click_through()
    with qtbot.waitSignal(overlay.visibility_changed) as hidden:
        act("hide")
    assert hidden.args == [False] and not overlay.isVisible()


def test_reload_settings_applies_the_dialogs_values(overlay, settings):
    settings.set(keys.OVERLAY_LINES, 3)
    settings.set(keys.OVERLAY_FONT_SIZE, 40)
    settings.set(keys.OVERLAY_OPACITY, 0.3)
    settings.set(keys.OVERLAY_CLICK_THROUGH, True)
    overlay.reload_settings()
    assert overlay.style_values() == og.Style(3, 40, 0.3)
    assert overlay.is_click_through()


def send_mouse(widget, kind, local: QPoint, buttons=Qt.MouseButton.LeftButton):
    button = Qt.MouseButton.NoButton if kind == QEvent.Type.MouseMove else Qt.MouseButton.LeftButton
    event = QMouseEvent(
        kind,
        QPointF(local),
        QPointF(widget.mapToGlobal(local)),
        button,
        buttons,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, event)


def test_drag_moves_and_edges_resize_width_only(qtbot, overlay):
    overlay.show()
    qtbot.waitExposed(overlay)
    overlay.setGeometry(100, 100, 400, overlay.height())
    height = overlay.height()
    # Drag the body by (+30, -20).
    send_mouse(overlay, QEvent.Type.MouseButtonPress, QPoint(200, 20))
    send_mouse(overlay, QEvent.Type.MouseMove, QPoint(230, 0))
    send_mouse(overlay, QEvent.Type.MouseButtonRelease, QPoint(230, 0), Qt.MouseButton.NoButton)
    assert overlay.pos() == QPoint(130, 80)
    # Drag the right edge by +50: wider, same height, same left.
    send_mouse(overlay, QEvent.Type.MouseButtonPress, QPoint(395, 20))
    send_mouse(overlay, QEvent.Type.MouseMove, QPoint(445, 60))
    send_mouse(overlay, QEvent.Type.MouseButtonRelease, QPoint(445, 60), Qt.MouseButton.NoButton)
    assert overlay.geometry() == QRect(130, 80, 450, height)
    # The left edge by +100: narrower, the right border stays put.
    send_mouse(overlay, QEvent.Type.MouseButtonPress, QPoint(3, 20))
    send_mouse(overlay, QEvent.Type.MouseMove, QPoint(103, 20))
    assert overlay.geometry() == QRect(230, 80, 350, height)
    # ...and never below the minimum width.
    send_mouse(overlay, QEvent.Type.MouseMove, QPoint(403, 20))
    send_mouse(overlay, QEvent.Type.MouseButtonRelease, QPoint(403, 20), Qt.MouseButton.NoButton)
    assert overlay.width() == og.MIN_WIDTH and overlay.geometry().right() == 130 + 450 - 1


# -- geometry per screen -------------------------------------------------------------------------


def test_geometry_is_remembered_and_restored(qtbot, overlay, ini):
    overlay.show()
    qtbot.waitExposed(overlay)
    overlay.set_font_size(34)
    overlay.setGeometry(50, 60, 500, overlay.height())
    overlay.placement.save_geometry()
    key = og.screen_key(QGuiApplication.primaryScreen())
    assert make_settings(ini).get_raw(og.GEOMETRY_PREFIX + key) == QRect(50, 60, 500, overlay.height())

    again = CaptionOverlay(make_settings(ini))
    qtbot.addWidget(again)
    assert again.geometry() == overlay.geometry()
    assert again.style_values().font_size == 34


def test_remembered_geometry_is_clamped_into_the_screen(qtbot, settings):
    screen = QGuiApplication.primaryScreen()
    area = screen.availableGeometry()
    settings.set_raw(
        og.GEOMETRY_PREFIX + og.screen_key(screen),
        QRect(area.right() + 500, area.bottom() + 400, area.width() + 900, 80),
    )
    overlay = CaptionOverlay(settings)
    qtbot.addWidget(overlay)
    assert area.contains(overlay.geometry())
    assert overlay.width() == area.width()


def test_a_disconnected_screens_record_is_not_used(qtbot, settings):
    settings.set_raw(og.GEOMETRY_PREFIX + "HDMI-9", QRect(3000, 10, 1500, 100))
    og.save_style(settings, "HDMI-9", og.Style(4, 60, 1.0))
    settings.set_raw(og.LAST_SCREEN, "HDMI-9")
    overlay = CaptionOverlay(settings)
    qtbot.addWidget(overlay)
    area = QGuiApplication.primaryScreen().availableGeometry()
    assert area.contains(overlay.geometry())
    assert overlay.geometry() == og.default_rect(area, overlay.height())  # the primary's default
    assert overlay.style_values() == og.Style(2, 28, 0.65)


def test_clamp_rect():
    area = QRect(1920, 0, 1280, 720)
    assert og.clamp_rect(QRect(2000, 100, 300, 80), area) == QRect(2000, 100, 300, 80)
    assert og.clamp_rect(QRect(0, 0, 300, 80), area) == QRect(1920, 0, 300, 80)
    assert og.clamp_rect(QRect(3100, 700, 300, 80), area) == QRect(2900, 640, 300, 80)
    assert og.clamp_rect(QRect(3100, 700, 2000, 80), area) == QRect(1920, 640, 1280, 80)


TWO_SCREENS = textwrap.dedent("""
    import json, sys
    from PySide6.QtCore import QRect, QSettings
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from app.settings import AppSettings
    from app.overlay.caption_overlay import CaptionOverlay
    from app.overlay import geometry as og
    settings = AppSettings(QSettings(sys.argv[1], QSettings.Format.IniFormat))
    screens = {s.name(): s for s in app.screens()}
    out = {"screens": sorted(screens)}
    overlay = CaptionOverlay(settings)
    if sys.argv[2] == "record":
        overlay.show()
        cases = (("LEFT", QRect(100, 900, 1000, 10), 30), ("RIGHT", QRect(2500, 500, 600, 10), 48))
        for name, rect, size in cases:
            overlay.setGeometry(rect.x(), rect.y(), rect.width(), overlay.height())
            app.processEvents()
            overlay.set_font_size(size)
            out[name + "-screen"] = og.screen_key(overlay.placement.current_screen())
            overlay.placement.save_geometry()
    else:
        for name in ("LEFT", "RIGHT"):
            overlay.placement.restore_geometry(screens[name])
            g = overlay.geometry()
            out[name] = [g.x(), g.y(), g.width(), overlay.style_values().font_size]
            out[name + "-inside"] = screens[name].availableGeometry().contains(g)
        fresh = CaptionOverlay(settings)  # opens on the screen it was last on
        out["last"] = og.screen_key(fresh.placement.current_screen())
    print(json.dumps(out))
""")


def run_with_screens(tmp_path, ini, mode: str, right_width: int) -> dict:
    config = tmp_path / f"screens-{right_width}.json"
    config.write_text(
        json.dumps(
            {
                "screens": [
                    {
                        "name": "LEFT",
                        "x": 0,
                        "y": 0,
                        "width": 1920,
                        "height": 1080,
                        "logicalDpi": 96,
                        "dpr": 1,
                    },
                    {
                        "name": "RIGHT",
                        "x": 1920,
                        "y": 0,
                        "width": right_width,
                        "height": 720,
                        "logicalDpi": 96,
                        "dpr": 1,
                    },
                ]
            }
        )
    )
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", TWO_SCREENS, str(ini), mode],
        env=env,
        cwd=ROOT,
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_each_screen_keeps_its_own_place_and_size_and_a_smaller_screen_clamps(tmp_path, ini):
    recorded = run_with_screens(tmp_path, ini, "record", 1280)
    assert recorded["screens"] == ["LEFT", "RIGHT"]
    assert (recorded["LEFT-screen"], recorded["RIGHT-screen"]) == ("LEFT", "RIGHT")
    restored = run_with_screens(tmp_path, ini, "restore", 1280)
    assert restored["LEFT"] == [100, restored["LEFT"][1], 1000, 30]
    assert restored["RIGHT"] == [2500, restored["RIGHT"][1], 600, 48]
    assert restored["last"] == "RIGHT"
    # Next day the right screen is a smaller one: the overlay is pulled back inside it.
    smaller = run_with_screens(tmp_path, ini, "restore", 800)
    assert smaller["RIGHT-inside"] and smaller["LEFT-inside"]
    assert smaller["RIGHT"][0] + smaller["RIGHT"][2] <= 1920 + 800 and smaller["RIGHT"][3] == 48


# -- looks ----------------------------------------------------------------------------------------


def composite(overlay: CaptionOverlay, background: QColor) -> QImage:
    """The overlay as seen over a flat video frame of ``background`` colour."""
    image = QImage(overlay.size(), QImage.Format.Format_ARGB32)
    image.fill(background)
    painter = QPainter(image)
    painter.drawImage(0, 0, overlay.grab().toImage())
    painter.end()
    return image


def test_text_stays_readable_on_a_white_frame_without_a_panel(overlay, tmp_path):
    overlay.resize(700, overlay.height())
    overlay.set_background_opacity(0.0)
    overlay.set_captions("Readable on white.", "still")
    image = composite(overlay, QColor("white"))
    image.save(str(tmp_path / "overlay-on-white.png"))
    line = overlay.laid_out_lines()[0]
    spacing = overlay.line_spacing()
    top = overlay.PAD_Y + (overlay.style_values().lines - 1) * spacing
    area = rgb(image)[int(top) : int(top + spacing), overlay.PAD_X : int(overlay.PAD_X + line.runs[0].width)]
    dark = int(((area.max(axis=-1) + area.min(axis=-1)) // 2 < 60).sum())
    assert dark > 200  # the outline: white text on white would otherwise be invisible


def test_caption_colours_have_enough_contrast():
    for dark in (True, False):
        c = caption_colors(dark)
        assert contrast_ratio(c.settled, c.background) >= 7  # WCAG AAA
        assert contrast_ratio(c.provisional, c.background) >= 4.5  # WCAG AA
        assert contrast_ratio(c.partial, c.background) >= 4.5
        # settled > provisional > partial: the more final, the stronger
        assert (
            contrast_ratio(c.settled, c.background)
            > contrast_ratio(c.provisional, c.background)
            > contrast_ratio(c.partial, c.background)
        )
    assert contrast_ratio(QColor("black"), QColor("white")) == pytest.approx(21)


def test_theme_follows_the_system_scheme(qapp, monkeypatch):
    original = qapp.palette()
    watcher = ThemeWatcher(qapp)
    try:
        schemes = iter([Qt.ColorScheme.Dark, Qt.ColorScheme.Light])
        monkeypatch.setattr(watcher, "scheme", lambda: current)
        flips = []
        watcher.scheme_changed.connect(flips.append)
        current = next(schemes)
        watcher._on_scheme_changed(current)
        assert watcher.dark and is_dark(qapp.palette())
        current = next(schemes)
        watcher._on_scheme_changed(current)
        assert not watcher.dark and not is_dark(qapp.palette())
        assert flips == [True, False]
        assert is_dark(dark_palette()) and not is_dark(light_palette())
    finally:
        watcher.setParent(None)
        qapp.setPalette(original)
