"""Bots and their versions: uploads, quotas, duplicates, and the gate's specs.

A version is immutable: its upload is kept (content-addressed, in the blobs table) and
its row only moves from ``pending`` to ``passed`` or ``failed`` when the gate's worker
reports. A passing version becomes its bot's `current` one: scheduling plays it, and
the bot's earlier versions keep their games. An upload whose bytes, or whose content
hash (`arena.submissions.content_sha256`), are an existing version's is refused with
that version's name.
"""

from __future__ import annotations

import hashlib
import io
import re
import tarfile
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena.bot import BOT_NAME
from arena.errors import ArenaError
from arena.ladder.accounts import AccessError, Caller
from arena.ladder.config import QuotaSection
from arena.ladder.db import blobs, bots, inserted_id, versions
from arena.ladder.games import Spec, make_spec

DAY = 86_400.0
UPLOAD_SUFFIXES = (".whl", ".tar.gz", ".zip")
UPLOAD_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,199}")
"""What an upload's file name may be (it names the file in workers' caches)."""


class UploadError(ArenaError):
    """An upload the ladder refuses (HTTP 400, 409 or 413); one line saying why."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def upload_content(filename: str, data: bytes) -> str:
    """`arena.submissions.content_sha256` of `data` saved as `filename` (what a worker's cache checks)."""
    digest = hashlib.sha256(b"file\0" + filename.encode("utf-8", "surrogateescape") + b"\0")
    digest.update(data)
    return digest.hexdigest()


def pack_folder(folder: Path) -> tuple[str, bytes]:
    """A project folder as a reproducible sdist-like ``<name>.tar.gz`` (sorted members,
    zero times and owners; caches left out as `arena.submissions` leaves them out), so
    the same folder always uploads the same bytes."""
    from arena.submissions import _walk

    buffer = io.BytesIO()
    import gzip

    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as packed, \
            tarfile.open(fileobj=packed, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in _walk(folder):
            info = tar.gettarinfo(str(path), arcname=f"{folder.name}/{path.relative_to(folder).as_posix()}")
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if info.isreg():
                with open(path, "rb") as source:
                    tar.addfile(info, source)
            else:
                tar.addfile(info)
    return f"{folder.name}.tar.gz", buffer.getvalue()


def _own_bot(conn: Connection, caller: Caller, name: str, quotas: QuotaSection) -> int:
    """The id of bot `name`, registering it for the caller if new; AccessError if another's."""
    if not (len(name) <= 64 and BOT_NAME.match(name)):
        raise UploadError(f"bot name {name[:70]!r}: lowercase letters, digits and dashes, at most 64")
    row = conn.execute(sa.select(bots.c.id, bots.c.owner).where(bots.c.name == name)).first()
    if row is not None:
        if row.owner != caller.person and not caller.admin:
            raise AccessError(f"bot {name!r} belongs to another author")
        return int(row.id)
    owned = conn.execute(sa.select(sa.func.count()).select_from(bots).where(bots.c.owner == caller.person)
                         ).scalar() or 0
    if owned >= quotas.bots_per_author:
        raise UploadError(f"quota: {caller.name} already has {owned} bots (quotas.bots_per_author)", 429)
    return inserted_id(conn.execute(bots.insert().values(name=name, owner=caller.person, created=time.time())))


def _duplicate(conn: Connection, blob: str, content: str) -> str | None:
    row = conn.execute(sa.select(bots.c.name, versions.c.number).join(bots, bots.c.id == versions.c.bot)
                       .where((versions.c.blob == blob) | (versions.c.content == content))).first()
    return None if row is None else f"{row.name} version {row.number}"


def add_version(conn: Connection, caller: Caller, bot_name: str, filename: str, data: bytes,
                quotas: QuotaSection) -> dict[str, Any]:
    """Register an uploaded version of `bot_name` (pending its gate); UploadError if refused."""
    if not caller.may("submit"):
        raise AccessError("uploading needs a submit token")
    if not (UPLOAD_NAME.fullmatch(filename) and filename.endswith(UPLOAD_SUFFIXES)):
        raise UploadError(f"file name {filename[:70]!r}: upload a wheel (.whl) or an sdist (.tar.gz, .zip) "
                          "named with letters, digits and . _ + - (at most 200)")
    if len(data) > quotas.upload_bytes:
        raise UploadError(f"the upload is larger than {quotas.upload_bytes:,} bytes (quotas.upload_bytes)", 413)
    since = time.time() - DAY
    recent = conn.execute(sa.select(sa.func.count()).select_from(versions).join(bots, bots.c.id == versions.c.bot)
                          .where(bots.c.owner == caller.person, versions.c.created > since)).scalar() or 0
    if recent >= quotas.uploads_per_day:
        raise UploadError(f"quota: {recent} uploads in the last 24 hours (quotas.uploads_per_day)", 429)
    bot = _own_bot(conn, caller, bot_name, quotas)
    blob, content = hashlib.sha256(data).hexdigest(), upload_content(filename, data)
    if (same := _duplicate(conn, blob, content)) is not None:
        raise UploadError(f"this upload is identical to {same}", 409)
    conn.execute(blobs.insert().values(sha256=blob, filename=filename, data=data))
    number = (conn.execute(sa.select(sa.func.max(versions.c.number)).where(versions.c.bot == bot)).scalar() or 0) + 1
    version = inserted_id(conn.execute(versions.insert().values(
        bot=bot, number=number, content=content, blob=blob, size=len(data), state="pending", label="", package="",
        rulesets="[]", gate_log="", created=time.time())))
    return {"bot": bot_name, "version": number, "version_id": int(version), "content": content, "state": "pending"}


def version_seat(row: Any, name: str) -> dict[str, Any]:
    """A version as a game seat (see arena.ladder.games)."""
    return {"version": int(row.id), "name": name, "content": row.content, "label": row.label,
            "package": row.package, "blob": row.blob, "filename": row.filename}


def gate_specs(seat: Mapping[str, Any], rulesets: Sequence[Mapping[str, Any]], random_label: str,
               seed: int) -> list[Spec]:
    """The gate's games of a version (`seat`, its label known): on each ruleset it plays,
    one game against itself and one against ``random`` (deal 0, rotation 0)."""
    specs = []
    builtin = {"builtin": "random", "name": "random", "label": random_label}
    for ruleset in rulesets:
        players = int(ruleset["players"])
        plain = {key: ruleset[key] for key in ("label", "id", "options")}
        specs.append(make_spec(plain, [seat] * players, 0, 0, seed, gate=seat["version"]))
        specs.append(make_spec(plain, [seat] + [builtin] * (players - 1), 0, 0, seed, gate=seat["version"]))
    return specs
