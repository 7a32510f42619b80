"""Sandboxes for bots: bubblewrap namespaces, a uid and a cgroup per bot, fresh
for every game. `SandboxHost` is the bot host; docs/security.md says what a
sandboxed bot can and cannot do.

The names below are imported on first use: a sandbox's zygote (``python -m
arena.sandbox.zygote``) imports this package, and must not pay for the host's
modules (the harness side: channels, cgroups, checks) before loading its bot."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.sandbox.host import SandboxHost, SandboxUnavailable, enforcement, sandbox_unavailable

__all__ = ["SandboxHost", "SandboxUnavailable", "enforcement", "sandbox_unavailable"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'arena.sandbox' has no attribute {name!r}")
    from arena.sandbox import host

    value = getattr(host, name)
    globals()[name] = value  # found directly from now on (and replaceable by a test's monkeypatch)
    return value
