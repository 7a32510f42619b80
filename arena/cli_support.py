"""Old import path of `arena.cli.support`."""

from arena.cli.support import (SEED_RANGE, UserError, load_plugins, parse_assignment, print_json, seat_entrants,
                               user_errors)

__all__ = ["SEED_RANGE", "UserError", "load_plugins", "parse_assignment", "print_json", "seat_entrants",
           "user_errors"]
