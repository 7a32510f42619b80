"""The four games as reinforcement-learning environments.

- `arena.envs.pettingzoo.env(ruleset, players=..., options=..., render_mode=...)`: a
  PettingZoo AEC environment (needs ``pettingzoo`` and ``numpy``).
- `arena.envs.openspiel.load_game(ruleset, players=..., **options)`: a Python game
  registered with pyspiel (needs ``open-spiel``).

Both use one `arena.envs.encoding.Encoding` per ruleset and table (the stable action
index, the legal-action mask and the fixed-size observation array, all built from one
seat's observation and nothing else) and `arena.returns` for the rewards. Submodules are
imported on use, so `import arena.envs` needs neither library.
"""
