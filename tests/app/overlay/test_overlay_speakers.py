"""A meeting on the caption overlay: compact speaker labels ("Me›", "O1›") where the speaker
changes, each a run of its own, drawn in the speaker's colour (the caption view's, dark scheme),
fed from the caption view as the window feeds it."""

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QColor, QImage, QPainter

from app.main_window.caption_view import CaptionView
from app.overlay.caption_overlay import CaptionOverlay
from app.settings import AppSettings
from app.theme import speaker_color
from engine import SPEAKER_ME, Appended, Settled, SpeakerNames, TranscriptBuilder, Word

pytestmark = [pytest.mark.gui]

ANA = "others:1"


@pytest.fixture
def overlay(qtbot, tmp_path):
    widget = CaptionOverlay(AppSettings(QSettings(str(tmp_path / "o.ini"), QSettings.Format.IniFormat)))
    qtbot.addWidget(widget)
    widget.resize(900, widget.height())
    return widget


@pytest.fixture
def view(qtbot):
    v = CaptionView()
    qtbot.addWidget(v)
    v.set_builder(TranscriptBuilder())
    return v


def speak(view, turns):
    events, p = [], 0
    for speaker, text in turns:
        for i, w in enumerate(text.split()):
            events.append(Appended(p, Word(w, p * 0.4, p * 0.4 + 0.3, speaker=speaker)))
            last = i == len(text.split()) - 1
            events.append(Settled(p, "period" if last else "none", "lower", 1, w))
            p += 1
    view.builder.apply(events)
    view.apply(events)


def on_black(overlay) -> QImage:
    image = QImage(overlay.size(), QImage.Format.Format_ARGB32)
    image.fill(QColor("black"))
    painter = QPainter(image)
    painter.drawImage(0, 0, overlay.grab().toImage())
    painter.end()
    return image


def pixels_near(image: QImage, colour: QColor, tolerance: int = 6) -> int:
    return sum(
        1
        for y in range(image.height())
        for x in range(image.width())
        if max(
            abs(image.pixelColor(x, y).red() - colour.red()),
            abs(image.pixelColor(x, y).green() - colour.green()),
            abs(image.pixelColor(x, y).blue() - colour.blue()),
        )
        <= tolerance
    )


def test_labels_at_speaker_changes_are_runs_of_their_own_in_the_speakers_colour(overlay, view):
    speak(view, [(SPEAKER_ME, "is the budget ready"), (ANA, "yes it is")])
    overlay.set_captions(*view.tail_captions())
    overlay.show()
    text = " ".join(line.text for line in overlay.laid_out_lines())
    assert text == "Me› is the budget ready. O1› yes it is."
    labels = [run for line in overlay.laid_out_lines() for run in line.runs if run.label]
    assert [run.text for run in labels] == ["Me›", "O1›"]
    image = on_black(overlay)
    for speaker in (SPEAKER_ME, ANA):
        assert pixels_near(image, speaker_color(speaker, dark=True)) > 20, speaker


def test_renamed_speakers_show_on_the_overlay_and_one_source_has_no_labels(overlay, view):
    view.set_speaker_names(SpeakerNames(renamed={ANA: "Ana"}))
    speak(view, [(SPEAKER_ME, "hello"), (ANA, "hi")])
    overlay.set_captions(*view.tail_captions())
    assert " ".join(line.text for line in overlay.laid_out_lines()) == "Me› hello. Ana› hi."
    view.set_builder(TranscriptBuilder())
    speak(view, [("", "hello there")])
    overlay.set_captions(*view.tail_captions())
    lines = overlay.laid_out_lines()
    assert " ".join(line.text for line in lines) == "hello there."
    assert not any(run.label for line in lines for run in line.runs)
    assert pixels_near(on_black(overlay), speaker_color(SPEAKER_ME, dark=True)) == 0
