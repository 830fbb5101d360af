"""The package list, found rather than written by hand, so that a new subpackage is never left out
of a regular install (``pip install .``), plus the shipped models folder under its import name.

This is the one thing pyproject.toml cannot say: ``[tool.setuptools.packages.find]`` only finds
packages under their folder names, cannot rename ``models/`` to ``livecap_models``, and when
present replaces any list given here. Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

FOUND = find_packages(include=["app", "app.*", "engine", "engine.*", "training", "training.*"])

setup(packages=[*FOUND, "livecap_models"], package_dir={"livecap_models": "models"})
