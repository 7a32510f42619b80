"""The old import path of the built-in registration, now `arena.builtin_rulesets` (rules
import nothing of the harness; this re-export goes once the installed entry point names
the new module)."""

from arena.builtin_rulesets import register_rulesets  # noqa: F401
