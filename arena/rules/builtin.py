"""The old entry-point target of the built-in registration, now `arena.builtin_rulesets`.

An environment installed before the move still names this module in its `arena` entry
point until it is reinstalled; this re-export keeps it working. Nothing else imports it
(rules import nothing of the harness)."""

from arena.builtin_rulesets import register_rulesets  # noqa: F401
