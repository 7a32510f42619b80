"""The hosted ladder: a service that takes bot versions over time, validates them in
the sandbox and plays them with pull workers (docs/ladder.md).

One module per concept: `config` (the ladder's TOML file), `db` (SQLAlchemy Core
tables and the schema migrations), `accounts` (people, tokens, invitations),
`versions` (uploads, quotas, the gate's outcome), `games` (what a game is and how its
record is checked on return), `scheduler` (what to play next), `leases` (the work
queue workers pull from), `standings` (live TrueSkill per ruleset), `service` (the
ladder's operations in one object), `api` (the HTTP API), `worker` (the pull loop),
`serve` (the server with its local workers); the web pages: `pages` (HTML pages and
their templates), `views` (what pages and API show), `websafety` (headers, rate limits,
CSRF), `admin` (organisers' switches and the workers' leases).
"""
