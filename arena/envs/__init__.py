"""Games as reinforcement-learning environments: any ruleset that declares an ``encoding``
(the four built-in games, and a plugin's game that declares one).

- `arena.envs.pettingzoo.env(ruleset, players=..., options=..., render_mode=...)`: a
  PettingZoo AEC environment (needs ``pettingzoo`` and ``numpy``).
- `arena.envs.openspiel.load_game(ruleset, players=..., **options)`: a Python game
  registered with pyspiel (needs ``open-spiel``).

Both use the `arena.rules.encoding.Encoding` the ruleset declares for a table (the stable
action index, the legal-action mask and the fixed-size observation array, all built from
one seat's observation and nothing else; `arena.envs.encoding.encoding_for` asks for it,
or refuses a ruleset without one in one line) and `arena.returns` for the rewards. Submodules are
imported on use, so `import arena.envs` needs neither library.
"""
