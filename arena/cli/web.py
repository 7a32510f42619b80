"""`arena serve`: a results folder's web page over HTTP (the server is `arena.site.server`)."""

from __future__ import annotations

from pathlib import Path
import click

from arena.cli.support import user_errors
from arena.errors import ConfigError


@click.command()
@click.argument("results_dir", metavar="RESULTS_DIR", type=click.Path(file_okay=False, path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="TCP port (0: any free one).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--verbose", is_flag=True, help="Log every request.")
@user_errors
def serve(results_dir: Path, port: int, host: str, verbose: bool) -> None:
    """Serve RESULTS_DIR's web page (standings and replays) at http://HOST:PORT/.

    Writes RESULTS_DIR/site/ first if it is missing; any stored game can be
    replayed, not only those with a replay file. A folder without a results
    store (a fresh clone's results/reference) serves its published standings and
    says what is missing. Ctrl-C stops it.
    """
    from arena.site.server import make_server

    try:
        server = make_server(results_dir, host, port, verbose)
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    if server.missing:
        click.echo(f"note: {server.missing}")
    click.echo(f"serving {results_dir / 'site'} at http://{shown}:{server.server_address[1]}/ (Ctrl-C to stop)")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopped")
    finally:
        server.server_close()
