"""People, API tokens and invitations.

A token is ``<scope>_<secret>`` with a random 32-byte secret (`secrets.token_urlsafe`);
the database keeps only its SHA-256 (a random secret of that length cannot be guessed
from its hash, so a slow password hash buys nothing here: passwords come with the web
pages, issue 40). Scopes: ``submit`` (upload versions, read one's own gate logs),
``worker`` (lease and return work), ``admin`` (everything, and invite people). A
revoked token is refused from then on. Tokens are printed once, when made, and never
logged (the API's access log is off; errors never quote a token).

The web pages sign people in with a password (`set_password`, `check_password`): its
argon2id hash (argon2-cffi) is kept in ``passwords``; there is no recovery by email: an
admin sets a new one.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena.errors import ArenaError, ConfigError
from arena.ladder.db import inserted_id, invitations, passwords, people, tokens

SCOPES = ("submit", "worker", "admin")
PERSON_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


class AccessError(ArenaError):
    """A request without the right to do what it asks (HTTP 401/403)."""

    def __init__(self, message: str, status: int = 403):
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Caller:
    """Who a valid token belongs to, and its scope."""

    person: int
    name: str
    admin: bool
    scope: str

    def may(self, scope: str) -> bool:
        """An admin token may do everything; another only its own scope."""
        return self.scope == scope or self.scope == "admin"


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def create_person(conn: Connection, name: str, admin: bool = False) -> int:
    """A new person named `name` (lowercase letters, digits, '-' and '_'); ConfigError if malformed or taken."""
    if not PERSON_NAME.fullmatch(name):
        raise ConfigError(f"person name {name[:70]!r}: lowercase letters, digits, '-' and '_', at most 64")
    if conn.execute(sa.select(people.c.id).where(people.c.name == name)).first() is not None:
        raise ConfigError(f"person name {name!r} is taken")
    return inserted_id(conn.execute(people.insert().values(name=name, admin=admin, created=time.time())))


def issue_token(conn: Connection, person: int, scope: str) -> str:
    """A new token of `scope` for `person`: returned once, stored only as its hash."""
    if scope not in SCOPES:
        raise ArenaError(f"token scope {scope!r}: one of {', '.join(SCOPES)}")
    token = f"{scope}_{secrets.token_urlsafe(32)}"
    conn.execute(tokens.insert().values(person=person, scope=scope, digest=digest(token), created=time.time()))
    return token


def revoke_token(conn: Connection, token_digest_prefix: str, caller: Caller) -> int:
    """Revoke the caller's token(s) whose hash starts with `token_digest_prefix` (an admin:
    anyone's); how many were revoked."""
    if len(token_digest_prefix) < 8:
        raise ArenaError("name a token by at least 8 characters of its id")
    where = tokens.c.digest.startswith(token_digest_prefix) & tokens.c.revoked.is_(None)
    if not caller.admin:
        where &= tokens.c.person == caller.person
    return int(conn.execute(tokens.update().where(where).values(revoked=time.time())).rowcount)


def list_tokens(conn: Connection, caller: Caller) -> list[dict[str, Any]]:
    """The caller's tokens: an id (the first 12 characters of the stored hash, what
    `revoke_token` takes), scope, when made and revoked; never the secret."""
    rows = conn.execute(sa.select(tokens.c.digest, tokens.c.scope, tokens.c.created, tokens.c.revoked)
                        .where(tokens.c.person == caller.person).order_by(tokens.c.id)).all()
    return [{"id": r.digest[:12], "scope": r.scope, "created": r.created, "revoked": r.revoked} for r in rows]


def bearer_digest(header: str | None) -> str:
    """The stored hash of the token in an ``Authorization: Bearer <token>`` header; AccessError
    (401) if the header carries none."""
    if not header or not header.startswith("Bearer "):
        raise AccessError("no token: send Authorization: Bearer <token>", 401)
    return digest(header[7:].strip())


VALID_TOKEN = (sa.select(people.c.id, people.c.name, people.c.admin, tokens.c.scope)
               .select_from(tokens.join(people, people.c.id == tokens.c.person))
               .where(tokens.c.digest == sa.bindparam("digest"), tokens.c.revoked.is_(None)))
"""The person and scope of an unrevoked token by its hash (bound as ``digest``): built once, so
a request pays for its execution only, not for building and keying the statement again."""


def caller_of(row: Any) -> Caller:
    """The caller of a `VALID_TOKEN` row (None: AccessError 401)."""
    if row is None:
        raise AccessError("the token is unknown or revoked", 401)
    return Caller(row.id, row.name, bool(row.admin), row.scope)


def authenticate(conn: Connection, header: str | None) -> Caller:
    """The caller of an ``Authorization: Bearer <token>`` header; AccessError (401) if none is valid."""
    return caller_of(conn.execute(VALID_TOKEN, {"digest": bearer_digest(header)}).first())


def invite(conn: Connection, caller: Caller) -> str:
    """A one-use invitation code (an admin's)."""
    if not caller.admin:
        raise AccessError("only an admin invites")
    code = f"invite_{secrets.token_urlsafe(24)}"
    conn.execute(invitations.insert().values(digest=digest(code), invited_by=caller.person, created=time.time()))
    return code


def sign_up(conn: Connection, name: str, code: str | None, signup: str) -> str:
    """A new author `name` and their first `submit` token; `code` is required unless
    the ladder's sign-up is open. AccessError for a missing, unknown or used code."""
    return issue_token(conn, new_author(conn, name, code, signup), "submit")


def new_author(conn: Connection, name: str, code: str | None, signup: str) -> int:
    """A new author `name` (see `sign_up`); their id."""
    invitation = None
    if signup != "open":
        if not code:
            raise AccessError("sign-up is by invitation: send the code an admin gave you")
        invitation = conn.execute(sa.select(invitations.c.id).where(
            invitations.c.digest == digest(code), invitations.c.used_by.is_(None))).first()
        if invitation is None:
            raise AccessError("the invitation code is unknown or already used")
    person = create_person(conn, name)
    if invitation is not None:
        conn.execute(invitations.update().where(invitations.c.id == invitation.id).values(used_by=person))
    return person


# -- passwords (the web pages' sign-in) ----------------------------------------------------

MIN_PASSWORD, MAX_PASSWORD = 10, 200


def _hasher() -> Any:
    from argon2 import PasswordHasher

    return PasswordHasher()  # argon2id with the library's current recommended parameters


def set_password(conn: Connection, person: int, password: str) -> float:
    """Store `password`'s argon2id hash for `person` (replacing any); when it changed (sessions
    from before are refused). ConfigError for a password too short or too long."""
    if not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise ConfigError(f"a password has {MIN_PASSWORD}-{MAX_PASSWORD} characters")
    changed = time.time()
    hashed = _hasher().hash(password)
    if conn.execute(sa.select(passwords.c.person).where(passwords.c.person == person)).first() is None:
        conn.execute(passwords.insert().values(person=person, hash=hashed, changed=changed))
    else:
        conn.execute(passwords.update().where(passwords.c.person == person).values(hash=hashed, changed=changed))
    return changed


_DUMMY_HASH: list[str] = []


def check_password(conn: Connection, name: str, password: str) -> tuple[Caller, float] | None:
    """The person `name` signed in with `password` (a web session's caller: scope ``admin``
    for an admin, else ``submit``) and when their password last changed; None if either is
    wrong. An unknown name costs a hash too, so timing does not tell names apart."""
    from argon2.exceptions import InvalidHashError, VerificationError

    row = conn.execute(sa.select(people.c.id, people.c.name, people.c.admin, passwords.c.hash, passwords.c.changed)
                       .join(passwords, passwords.c.person == people.c.id).where(people.c.name == name)).first()
    hasher = _hasher()
    if row is None:
        if not _DUMMY_HASH:
            _DUMMY_HASH.append(hasher.hash("not a password of anyone"))
        with contextlib.suppress(VerificationError, InvalidHashError):
            hasher.verify(_DUMMY_HASH[0], password)
        return None
    try:
        hasher.verify(row.hash, password)
    except (VerificationError, InvalidHashError):
        return None
    return session_caller(row), float(row.changed)


def session_caller(row: Any) -> Caller:
    """A web session's caller from a row with id, name, admin."""
    return Caller(int(row.id), row.name, bool(row.admin), "admin" if row.admin else "submit")


def session_person(conn: Connection, person: int, changed: float) -> Caller | None:
    """The caller of a session of `person` signed in when their password's change time was
    `changed`; None if the person or password is gone or changed since (an admin's reset)."""
    row = conn.execute(sa.select(people.c.id, people.c.name, people.c.admin, passwords.c.changed)
                       .join(passwords, passwords.c.person == people.c.id).where(people.c.id == person)).first()
    if row is None or abs(float(row.changed) - changed) > 1e-6:
        return None
    return session_caller(row)


def person_id(conn: Connection, name: str) -> int:
    """The id of person `name`; ConfigError if there is none."""
    found = conn.execute(sa.select(people.c.id).where(people.c.name == name)).scalar()
    if found is None:
        raise ConfigError(f"no person {name[:70]!r}")
    return int(found)
