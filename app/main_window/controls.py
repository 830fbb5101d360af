"""The captions window's small widgets: notice banners, the input level meter, the session
clock and the latency slider (the source picker is in ``source_picker``). Each has an accessible
name and works from the keyboard."""

from __future__ import annotations

import math
from collections.abc import Callable

from PySide6.QtCore import QElapsedTimer, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

import app.qt_compat  # noqa: F401  (PySide6 6.12.0 refcount fix; must run before any Qt call)
from engine import LatencyMap, LatencySetting, format_elapsed


def punctuation_by(who: str) -> str:
    """Who puts in the punctuation ("livecap", a recognizer's title), in words a newcomer reads
    without knowing what a "mark" is."""
    return f"punctuation by {who}"


PUNCTUATION_BY_LIVECAP = punctuation_by("livecap")

# Fixed colours rather than the palette's: a warning must look like one in any theme, and
# these pairs keep a contrast above 7:1.
_BANNER_COLOURS = {
    "info": ("#e8f0fe", "#0b2a5b"),
    "warning": ("#fff4ce", "#3d2e00"),
    "error": ("#fde7e9", "#5c0011"),
}


class Banner(QFrame):
    """One notice across the top of the window: what is wrong, and buttons to do something about it."""

    def __init__(
        self, kind: str, text: str, actions: list[tuple[str, Callable[[], None]]], on_close, parent=None
    ):
        super().__init__(parent)
        background, foreground = _BANNER_COLOURS.get(kind, _BANNER_COLOURS["info"])
        self.setObjectName("banner")
        self.setStyleSheet(
            f"#banner {{ background: {background}; border-radius: 6px; }}"
            f"#banner QLabel {{ color: {foreground}; }}"
        )
        self.kind = kind
        self.label = QLabel(text, wordWrap=True, textInteractionFlags=Qt.TextSelectableByMouse)
        self.label.setAccessibleName(text)
        self.setAccessibleName(f"{kind.capitalize()}: {text}")
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 8, 8, 8)
        row.addWidget(self.label, 1)
        self.buttons: dict[str, QPushButton] = {}
        for label, callback in actions:
            button = QPushButton(label, clicked=callback)
            button.setAccessibleName(label.replace("…", ""))
            self.buttons[label] = button
            row.addWidget(button)
        close = QToolButton(text="✕", clicked=on_close, autoRaise=True)
        close.setAccessibleName("Dismiss this notice")
        close.setToolTip("Dismiss")
        row.addWidget(close)

    @property
    def text(self) -> str:
        return self.label.text()


class BannerArea(QWidget):
    """Banners by topic ("audio", "model", "error"...): showing a topic again replaces its banner."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.banners: dict[str, Banner] = {}
        self.setVisible(False)

    def show_banner(
        self, topic: str, kind: str, text: str, actions: list[tuple[str, Callable[[], None]]] = ()
    ) -> Banner:
        self.hide_banner(topic)
        banner = Banner(kind, text, list(actions), lambda: self.hide_banner(topic), self)
        self.banners[topic] = banner
        self._layout.addWidget(banner)
        self.setVisible(True)
        return banner

    def hide_banner(self, topic: str) -> None:
        banner = self.banners.pop(topic, None)
        if banner is not None:
            banner.hide()
            banner.deleteLater()
        self.setVisible(bool(self.banners))

    def text(self, topic: str) -> str | None:
        banner = self.banners.get(topic)
        return banner.text if banner is not None else None


class LevelMeter(QProgressBar):
    """Input level in dB, -60 dBFS (empty) to 0 (full).

    It falls back slowly so that speech reads as a bar, not a flicker."""

    FLOOR_DB = -60.0

    def __init__(self, parent=None):
        super().__init__(parent, minimum=0, maximum=100, textVisible=False)
        self.setAccessibleName("Input level")
        self.setToolTip("Input level: if it stays empty while someone speaks, check the source")
        # Thin, so that an idle (empty) meter reads as a bar and not as an empty text field.
        self.setFixedSize(120, 12)
        self.setFocusPolicy(Qt.NoFocus)

    def set_rms(self, rms: float) -> None:
        db = 20 * math.log10(rms) if rms > 1e-6 else self.FLOOR_DB
        level = round(100 * (max(self.FLOOR_DB, min(0.0, db)) - self.FLOOR_DB) / -self.FLOOR_DB)
        self.setValue(max(level, self.value() - 6))


class ElapsedClock(QLabel):
    """Time captioned in this session as h:mm:ss; pauses (and starting or stopping) not counted."""

    def __init__(self, parent=None):
        super().__init__("0:00:00", parent)
        self.setAccessibleName("Elapsed time")
        self.setToolTip("Time captioned in this session (pauses not counted)")
        self._running = QElapsedTimer()  # since the current run began
        self._before = 0  # ms captioned before the current run
        self._timer = QTimer(self, interval=500, timeout=self._show)

    def reset(self) -> None:
        """A new session: count from zero at its first run."""
        self._before = 0

    def run(self) -> None:
        self._running.start()
        self._timer.start()
        self._show()

    def halt(self) -> None:
        if self._running.isValid():
            self._before += self._running.elapsed()
            self._running.invalidate()
        self._timer.stop()
        self._show()

    def _show(self) -> None:
        ms = self._before + (self._running.elapsed() if self._running.isValid() else 0)
        seconds = ms // 1000
        self.setText(format_elapsed(seconds, width=7))  # "0:00:00": the label keeps its width


def latency_map_for(model_dir) -> LatencyMap:
    """What each latency setting means with the punctuation model in ``model_dir`` (the shipped
    one where None)."""
    from engine import DecoderSettings, ModelConfig, ModelError, model_folder

    folder = model_folder(model_dir)
    try:
        decoder = ModelConfig.load(folder).decoder
        return LatencyMap.for_model(folder, decoder.threshold, decoder.l_max)
    except ModelError:  # a broken model is reported when a session loads it
        fallback = DecoderSettings()  # what a model whose config says nothing gets
        return LatencyMap.for_model(None, fallback.threshold, fallback.l_max)


class LatencyControl(QWidget):
    """Faster ↔ more accurate punctuation, with what the setting means in words of delay."""

    changed = Signal(object)  # LatencySetting

    def __init__(self, latency_map: LatencyMap, value: int, parent=None):
        super().__init__(parent)
        self.map = latency_map
        self.slider = QSlider(Qt.Horizontal, minimum=0, maximum=100, singleStep=5, pageStep=25)
        self.slider.setAccessibleName("Punctuation: faster or more accurate")
        self.slider.setToolTip(
            "Left: marks appear sooner. Right: marks wait for more words and are more accurate."
        )
        self.slider.setFixedWidth(140)
        # Says whose punctuation the slider tunes; hidden while the recognizer punctuates, when
        # the description says who does instead.
        self.punctuated_by = QLabel(f"{PUNCTUATION_BY_LIVECAP}:")
        self.punctuated_by.setAccessibleName("Who punctuates")
        self.description = QLabel()
        self.description.setAccessibleName("Punctuation delay")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.punctuated_by)
        faster = QLabel("Faster")
        faster.setBuddy(self.slider)
        row.addWidget(faster)
        row.addWidget(self.slider)
        row.addWidget(QLabel("More accurate"))
        row.addWidget(self.description)
        self.slider.setValue(value)
        self.slider.valueChanged.connect(self._on_value)
        self._on_value(value, emit=False)

    @property
    def setting(self) -> LatencySetting:
        return self.map.setting(self.slider.value())

    def show_marks_by_recognizer(self, label: str | None, detail: str = "") -> None:
        """The recognizer decides the marks (Whisper's own: ``punctuation_by("Whisper")``, or none for
        a language livecap's model does not know): they come with the words, so there is nothing
        to trade, and the slider rests, ``label`` and ``detail`` saying why. None: livecap's
        model marks the words again."""
        self.slider.setEnabled(label is None)
        self.punctuated_by.setVisible(label is None)
        if label is None:
            self._on_value(self.slider.value(), emit=False)
            return
        self.description.setText(label)
        self.description.setToolTip(detail)
        self.slider.setAccessibleDescription(f"{label}. {detail}")

    def set_value(self, value: int) -> None:
        self.slider.setValue(value)

    def _on_value(self, value: int, emit: bool = True) -> None:
        setting = self.map.setting(value)
        self.description.setText(setting.describe())
        self.description.setToolTip(setting.detail())
        self.slider.setAccessibleDescription(
            f"{PUNCTUATION_BY_LIVECAP}, {setting.describe()}. {setting.detail()}"
        )
        if emit:
            self.changed.emit(setting)
