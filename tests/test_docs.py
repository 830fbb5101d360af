"""The reference pages stay references: each page under docs/ at most 20,000 bytes, and every
relative link of the docs and the README leads to a file that is there (and to a heading that is
there, where it names one)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGE_LIMIT = 20_000  # bytes: past it a page holds a study, which belongs in docs/experiments/

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    headings = [line.lstrip("#").strip() for line in page.read_text().splitlines() if line.startswith("#")]
    return {_slug(h) for h in headings}


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_each_reference_page_is_at_most_20_kb(page):
    assert page.stat().st_size <= PAGE_LIMIT, f"{page.name}: move dated studies to docs/experiments/"


@pytest.mark.parametrize(
    "page",
    [ROOT / "README.md", *_pages(), *sorted((DOCS / "experiments").glob("*.md"))],
    ids=lambda p: p.name,
)
def test_relative_links_lead_somewhere(page):
    broken = []
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target):  # https:, mailto:: not ours to check
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
            broken.append(target)
    assert not broken, f"{page.name}: broken links {broken}"
