"""Counting a widget grab's pixels with numpy: a Python loop over QImage.pixelColor costs seconds
for each grab of a window, and the screenshot tests take many."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QColor, QImage

__all__ = ["alpha", "colour_distance", "pixels_near", "rgb"]


def rgb(image: QImage) -> np.ndarray:
    """The image as an (height, width, 3) int array of red, green and blue."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    width, height = image.width(), image.height()
    # Format_RGB32 rows are whole 32-bit words (0xffRRGGBB), each line bytesPerLine long.
    words = np.frombuffer(image.constBits(), np.uint32, count=image.bytesPerLine() // 4 * height)
    words = words.reshape(height, image.bytesPerLine() // 4)[:, :width]
    return np.stack([(words >> 16) & 0xFF, (words >> 8) & 0xFF, words & 0xFF], axis=-1).astype(np.int32)


def alpha(image: QImage) -> np.ndarray:
    """The image's opacity as a (height, width) int array, 0 (transparent) to 255."""
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    width, height = image.width(), image.height()
    words = np.frombuffer(image.constBits(), np.uint32, count=image.bytesPerLine() // 4 * height)
    return ((words.reshape(height, image.bytesPerLine() // 4)[:, :width] >> 24) & 0xFF).astype(np.int32)


def colour_distance(image: QImage, colour: QColor) -> np.ndarray:
    """Each pixel's largest difference in one channel from ``colour`` (height × width)."""
    target = np.array([colour.red(), colour.green(), colour.blue()], np.int32)
    return np.abs(rgb(image) - target).max(axis=-1)


def pixels_near(image: QImage, colour: QColor, tolerance: int = 6, rows: slice = slice(None)) -> int:
    """How many pixels (of ``rows``) are within ``tolerance`` of ``colour`` in every channel."""
    return int((colour_distance(image, colour)[rows] <= tolerance).sum())
