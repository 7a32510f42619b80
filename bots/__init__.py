"""Built-in bots (import name `arena_bots`), registered through the `arena` entry point."""
