"""The bot author's reference, generated from the rulesets themselves.

Each ruleset's module docstring is its rules page (players, deck, ACTION GRAMMAR,
VIEW FIELDS, EVENT TYPES, options, version). `docstring_sections` cuts such a page
into titled sections; `rulesets_markdown` turns every built-in ruleset into
`docs/rulesets.md` (its identity and options from the `Ruleset` class, its
actions, view and events from its docstring), so the reference cannot drift from
the code: a test compares the committed file with what this module generates
(`arena docs --check docs/rulesets.md`). `arena.scaffold` uses the same sections
for the comments of a new bot.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from dataclasses import dataclass
from typing import Any, Iterable

from arena.rules.base import CAPABILITIES, Option, Ruleset

BUILTIN_PACKAGE = "flip-arena"

SECTION_KINDS = {
    "actions": ("action grammar",),
    "view": ("view field",),
    "events": ("event type",),
    "options": ("options",),
}
"""What each kind of section is called in a heading (lowercase substrings)."""

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


def find_section(sections: Iterable[Section], kind: str) -> Section | None:
    """The first section whose heading names `kind` (a key of SECTION_KINDS)."""
    for section in sections:
        heading = section.heading.lower()
        if kind == "options":
            if heading.startswith("options"):
                return section
        elif any(word in heading for word in SECTION_KINDS[kind]):
            return section
    return None


def ruleset_doc(ruleset: type[Ruleset]) -> str:
    """The rules page of `ruleset`: its module's docstring (or the class's)."""
    module = sys.modules.get(ruleset.__module__)
    return (module.__doc__ if module is not None and module.__doc__ else None) or ruleset.__doc__ or ""


@dataclass(frozen=True)
class RulesetReference:
    """What a bot author needs to know about one ruleset."""

    id: str
    title: str
    version: str
    players: tuple[int, int]
    module: str
    summary: str
    options: dict[str, Option]
    actions: str | None
    view: str | None
    events: str | None


def ruleset_reference(ruleset: type[Ruleset]) -> RulesetReference:
    intro, sections = docstring_sections(ruleset_doc(ruleset))
    pieces = {kind: find_section(sections, kind) for kind in ("actions", "view", "events")}
    return RulesetReference(
        id=ruleset.id, title=getattr(ruleset, "title", ruleset.id), version=ruleset.version,
        players=(ruleset.min_players, ruleset.max_players), module=ruleset.__module__,
        summary=" ".join(intro.split("\n\n")[0].split()), options=dict(ruleset.options),
        **{kind: (_section_text(s) if s is not None else None) for kind, s in pieces.items()})


def _section_text(section: Section) -> str:
    # A heading such as "Action grammar (legal_actions, in this order)" carries
    # information; keep what follows the name as a first line.
    extra = re.sub(r"^[^(]*", "", section.heading).strip()
    return (extra + "\n" if extra else "") + section.body


def builtin_rulesets() -> list[type[Ruleset]]:
    """The rulesets arena ships, sorted by id (other installed plugins are left out,
    so the generated reference does not depend on the machine)."""
    from arena.plugins import load_registry

    registry = load_registry()
    return [e.cls for e in registry.rulesets.values() if e.origin.package == BUILTIN_PACKAGE]


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def _option_row(name: str, option: Option) -> str:
    allowed = []
    if option.choices is not None:
        allowed.append("one of " + ", ".join(f"`{json.dumps(c)}`" for c in option.choices))
    if option.minimum is not None:
        allowed.append(f">= {_number(option.minimum)}")
    if option.maximum is not None:
        allowed.append(f"<= {_number(option.maximum)}")
    default = json.dumps(option.default)
    if len(default) > 40:
        default = f"({type(option.default).__name__} of {len(option.default)})"
    cell = lambda text: text.replace("|", "\\|").replace("\n", " ")  # noqa: E731
    return f"| `{name}` | `{cell(default)}` | {cell(', '.join(allowed)) or ' '} | {cell(option.help)} |"


def rulesets_markdown(rulesets: Iterable[type[Ruleset]] | None = None) -> str:
    """`docs/rulesets.md`: the observation and action reference of each ruleset."""
    chosen = sorted(rulesets if rulesets is not None else builtin_rulesets(), key=lambda r: r.id)
    out = [
        "# Ruleset reference for bot authors",
        "",
        "<!-- Generated by `arena docs` from the rulesets' classes and module docstrings; "
        "do not edit by hand. A test fails when this file differs from what the code generates: "
        "regenerate it with `arena docs --out docs/rulesets.md`. -->",
        "",
        "Every decision your bot makes gets an observation (plain JSON data):",
        "",
        "```",
        '{"ruleset": id, "version": "1", "options": {...the options in force...}, "seat": your seat,',
        ' "players": n, "view": {...what your seat sees...}, "events": [...what your seat witnessed',
        ' since its last decision...], "legal_actions": ["...", ...]}',
        "```",
        "",
        "Answer with one string of `legal_actions`. Below, for each ruleset: its options, the",
        "action grammar (what the strings in `legal_actions` mean), the fields of `view`, and the",
        "event types. The full rules page (deck, turn structure, every ruling) is the ruleset's",
        "module docstring, named under each title.",
        "",
        "| ruleset | title | version | players |",
        "|---|---|---|---|",
    ]
    refs = [ruleset_reference(r) for r in chosen]
    for ref in refs:
        out.append(f"| [`{ref.id}`](#{ref.id}) | {ref.title} | {ref.version} | "
                   f"{ref.players[0]}-{ref.players[1]} |")
    for ref in refs:
        out += ["", f"## {ref.id}", "", f"**{ref.title}**, version {ref.version}, "
                f"{ref.players[0]} to {ref.players[1]} players. Rules page: the docstring of `{ref.module}`.",
                "", ref.summary, "", "### Options", ""]
        if ref.options:
            out += ["| option | default | allowed | meaning |", "|---|---|---|---|"]
            out += [_option_row(name, option) for name, option in ref.options.items()]
        else:
            out.append("None.")
        for title, text in (("Actions", ref.actions), ("View fields", ref.view), ("Events", ref.events)):
            out += ["", f"### {title}", ""]
            out += ["```text", text, "```"] if text else ["Not documented in the rules page."]
    for ruleset in chosen:
        out[out.index(f"## {ruleset.id}"):] = _with_capabilities(out[out.index(f"## {ruleset.id}"):], ruleset)
    return "\n".join(out) + "\n"


CAPABILITY_MEANINGS = {
    "sample_state": "full states consistent with a seat's observation (search bots)",
    "lay_out": "positions set by hand (tests, puzzles)",
    "encoding": "the fixed-size observation array and action index (PettingZoo, OpenSpiel)",
    "evaluate": "a value per seat of a full state (ismcts's cut-off)",
    "chance_outcomes": "the most outcomes of one chance draw (OpenSpiel)",
}
"""What `arena docs` says each capability (`Ruleset.capabilities`) is for."""


def capability_lines(ruleset: type[Ruleset]) -> list[str]:
    """The "Capabilities" section of `ruleset`: what it declares and, with an encoding, the
    blocks of its observation array at the smallest table of two or more players with
    the default options."""
    declared = [name for name in CAPABILITIES if ruleset.supports(name)]
    lines = ["", "### Capabilities", ""]
    lines += [f"- `{name}`: {CAPABILITY_MEANINGS.get(name, '')}" for name in declared] or ["None declared."]
    if "encoding" in declared:
        players = min(max(2, ruleset.min_players), ruleset.max_players)
        encoding = ruleset.encoding(players, ruleset.resolve_options())
        lines += ["", f"The observation array at {players} players (default options): {encoding.size} floats, "
                      f"{len(encoding.actions)} actions in the index.", "",
                  "| block | offset | length |", "|---|---|---|"]
        lines += [f"| `{f.name}` | {f.offset} | {f.length} |" for f in encoding.features]
    return lines


def _with_capabilities(section: list[str], ruleset: type[Ruleset]) -> list[str]:
    """One ruleset's section (up to the next one) with its capabilities after its events."""
    end = next((i for i, line in enumerate(section) if i and line.startswith("## ")), len(section))
    return section[:end] + capability_lines(ruleset) + section[end:]


def hint_lines(ruleset: type[Ruleset], kinds: Iterable[str] = ("actions", "view")) -> list[str]:
    """Lines of the ruleset's reference (for comments in generated code)."""
    ref = ruleset_reference(ruleset)
    lines: list[str] = []
    for kind in kinds:
        text = getattr(ref, kind)
        if text:
            title = {"actions": "Actions", "view": "View fields", "events": "Events"}[kind]
            body = text.splitlines()
            if body and body[0].startswith("(") and len(body[0]) < 80:
                title += " " + body.pop(0)
            lines.append(title + ":")
            lines += ["    " + line if line.strip() else "" for line in body]
    return lines


def docs_status(path: Any, text: str) -> str | None:
    """None when the file at `path` holds `text`; else why not."""
    from pathlib import Path

    path = Path(path)
    if not path.exists():
        return f"{path} does not exist"
    if path.read_text(encoding="utf-8") != text:
        return f"{path} differs from what the rulesets generate"
    return None
