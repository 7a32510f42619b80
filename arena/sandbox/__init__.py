"""Sandboxes for bots: bubblewrap namespaces, a uid and a cgroup per bot, fresh
for every game. `SandboxHost` is the bot host; docs/security.md says what a
sandboxed bot can and cannot do."""

from arena.sandbox.host import SandboxHost, SandboxUnavailable, enforcement, sandbox_unavailable

__all__ = ["SandboxHost", "SandboxUnavailable", "enforcement", "sandbox_unavailable"]
