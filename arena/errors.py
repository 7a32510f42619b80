"""The exceptions arena raises. Each is a one-line message fit to show a user."""


class ArenaError(Exception):
    """Base of every error arena raises on purpose."""


class ConfigError(ArenaError, ValueError):
    """Bad user input: an option, a tournament file, a command-line value."""


class OptionError(ConfigError):
    """A ruleset option that is unknown or has a bad value."""


class UnknownNameError(ConfigError, LookupError):
    """A bot or ruleset name that no plugin registered."""


class PlayerCountError(ConfigError):
    """A number of players the ruleset (or a bot) does not support."""


class PluginError(ArenaError):
    """A plugin that breaks the contract, e.g. two plugins registering one name."""


class IllegalActionError(ArenaError, ValueError):
    """An action that is not among the legal actions of the current decision."""


class BotError(ArenaError):
    """A bot raised, or answered with something that is not a string."""


class ReplayMismatchError(ArenaError):
    """A record that does not replay to the transcript hash it carries."""
