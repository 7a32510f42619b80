"""A game's rules page: its module's docstring, cut into titled sections.

Each ruleset's module docstring is its rules page (players, deck, the play, ACTION GRAMMAR,
VIEW FIELDS, EVENT TYPES, options, version). `docstring_sections` cuts such a page into
titled sections: `arena.reference` makes the bot author's reference from them, the kit
checks the sections every page must have (`REQUIRED_SECTIONS`), and
`Ruleset.how_to_play` is the player-facing "How to play" section.
"""

from __future__ import annotations

import inspect
import re
import sys
from dataclasses import dataclass
from typing import Any

HOW_TO_PLAY = "how to play"
"""How the player-facing section's heading begins (lowercased): a few lines for a person
at the table, shown by `arena play`."""

REQUIRED_SECTIONS = {
    "how to play": "How to play (a few lines for a person at the table)",
    "action grammar": "Action grammar (every action string and what it does)",
    "view field": "View fields (every key of view(seat))",
    "event type": "Event types (every event's type and keys)",
}
"""The sections every rules page has (the kit checks them): a lowercased word a heading
holds, and what the section is, for the error that names a missing one."""


_UNDERLINE = re.compile(r"^\s*[-=~]{3,}\s*$")


@dataclass(frozen=True)
class Section:
    heading: str
    body: str


def docstring_sections(doc: str) -> tuple[str, list[Section]]:
    """(the opening paragraph, the titled sections) of a rules-page docstring.

    A heading opens a paragraph (after a blank line) of at most three unindented
    lines. Two styles are understood: the heading underlined with dashes (its body
    is not indented), or the heading followed directly by an indented body.
    """
    lines = inspect.cleandoc(doc or "").splitlines()
    underlined = any(_UNDERLINE.match(line) for line in lines)
    heads: list[tuple[int, int]] = []  # (first heading line, first body line)
    i = 0
    while i < len(lines):
        if lines[i].strip() and not lines[i][0].isspace() and (i == 0 or not lines[i - 1].strip()):
            # A paragraph of up to three unindented lines, then an underline or an indented body.
            j = i
            while j < len(lines) and j - i < 3 and lines[j].strip() and not lines[j][0].isspace() \
                    and not _UNDERLINE.match(lines[j]):
                j += 1
            if underlined and j < len(lines) and _UNDERLINE.match(lines[j]):
                heads.append((i, j + 1))
                i = j + 1
                continue
            if not underlined and i > 0 and j < len(lines) and lines[j].strip() and lines[j][0].isspace():
                heads.append((i, j))
                i = j
                continue
        i += 1
    intro = "\n".join(lines[: heads[0][0] if heads else len(lines)]).strip()
    sections = []
    for n, (start, body_start) in enumerate(heads):
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        heading = " ".join(line.strip() for line in lines[start:body_start] if not _UNDERLINE.match(line))
        sections.append(Section(heading, _dedent("\n".join(lines[body_start:end]).rstrip())))
    return intro, sections


def _dedent(text: str) -> str:
    lines = text.splitlines()
    while lines and not lines[0].strip():
        lines.pop(0)
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents, default=0)
    return "\n".join(line[cut:] for line in lines)


def ruleset_doc(ruleset: Any) -> str:
    """The rules page of `ruleset`: its module's docstring (or the class's). A subclass
    whose own page is not a rules page (a variant made in a test module, say) has the page
    of the nearest ruleset it derives from that has one."""
    pages = [_own_page(klass) for klass in ruleset.__mro__ if "new_game" in vars(klass) or klass is ruleset]
    return next((page for page in pages if not _missing(page)), pages[0] if pages else "")


def _own_page(klass: Any) -> str:
    module = sys.modules.get(klass.__module__)
    return (module.__doc__ if module is not None and module.__doc__ else None) or vars(klass).get("__doc__") or ""


def how_to_play(ruleset: Any) -> str | None:
    """The text of `ruleset`'s "How to play" section (its body, dedented), or None."""
    _, sections = docstring_sections(ruleset_doc(ruleset))
    for section in sections:
        if section.heading.lower().startswith(HOW_TO_PLAY):
            return section.body
    return None


def missing_sections(ruleset: Any) -> list[str]:
    """The `REQUIRED_SECTIONS` that `ruleset`'s rules page lacks (or leaves empty), described."""
    return _missing(ruleset_doc(ruleset))


def _missing(page: str) -> list[str]:
    _, sections = docstring_sections(page)
    missing = []
    for word, what in REQUIRED_SECTIONS.items():
        found = [s for s in sections if (s.heading.lower().startswith(word) if word == HOW_TO_PLAY
                                         else word in s.heading.lower())]
        if not found or not found[0].body.strip():
            missing.append(what)
    return missing
