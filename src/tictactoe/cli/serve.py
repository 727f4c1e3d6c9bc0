"""``ttt serve``: the browser app on a local web server."""

from __future__ import annotations

import contextlib
import socket
from pathlib import Path
from typing import Annotated

import typer

from tictactoe.cli.app import app
from tictactoe.cli.common import console, fail, reports_errors
from tictactoe.extras import require


def free_port(host: str) -> int:
    """A port on ``host`` that nothing listens on right now."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


@app.command()
@reports_errors
def serve(
    host: Annotated[str, typer.Option(
        "--host", help="Address to listen on. Only this machine can connect to the default; "
                       "0.0.0.0 lets other machines in.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(
        "--port", "-p", min=0, max=65535, help="Port to listen on; 0 picks a free one.")] = 8000,
    data: Annotated[Path | None, typer.Option(
        "--data", "-d", file_okay=False,
        help="Folder for the game records (SQLite). Default: $TICTACTOE_DATA, else ./data.",
    )] = None,
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", help="Another name the server answers to (repeat for more). On a "
                               "loopback address it answers only to localhost, 127.0.0.1, "
                               "[::1] and the address it listens on.")] = None,
    trust_proxy: Annotated[list[str] | None, typer.Option(
        "--trust-proxy", help="The address of a reverse proxy in front of the server (repeat "
                              "for more): only its X-Forwarded-For is believed, for the cap "
                              "on new games per client. Default: none.")] = None,
    worker_memory: Annotated[int, typer.Option(
        "--worker-memory", min=256, max=1_048_576, metavar="MB",
        help="An engine worker that holds more than this many megabytes after a job is "
             "replaced (there are two workers).")] = 2048,
    public_history: Annotated[bool, typer.Option(
        "--public-history", help="On a public address, let anyone read the history of every "
                                 "game (off by default there; each browser always sees its "
                                 "own games).")] = False,
) -> None:
    """Play in the browser: serve the web app and its JSON API."""
    require("web", "ttt serve")


    from tictactoe.web.app import create_app
    from tictactoe.web.guard import LOOPBACK_HOSTS, is_loopback
    from tictactoe.web.server import GuardedServer, server_config
    from tictactoe.web.store import DATABASE_NAME, data_dir

    folder = data_dir(str(data) if data else None)
    local = is_loopback(host)
    hosts = [*LOOPBACK_HOSTS, host, *(allowed_host or [])] if local else None
    try:
        web = create_app(folder, allowed_hosts=hosts, public_history=local or public_history,
                         worker_memory_mb=worker_memory)
        if port == 0:
            port = free_port(host)
    except OSError as err:
        raise fail(f"cannot use {host} or the data folder {folder}: {err}") from None
    if not local:
        console.print(f"[bold yellow]Warning:[/] listening on {host}, so other machines can "
                      "connect: anyone who can reach this port can play, and open the games "
                      "whose links they have. The history of every game is "
                      + ("shared (--public-history)." if public_history else
                         "private (--public-history shares it).")
                      + " Use the default 127.0.0.1 to keep it to this machine.",
                      soft_wrap=True)
    shown = f"[{host}]" if ":" in host else host
    console.print(f"tictactoe is ready at [bold]http://{shown}:{port}/[/]  "
                  f"(games saved in {folder / DATABASE_NAME}; Ctrl-C stops it)", soft_wrap=True)
    server = GuardedServer(server_config(web, host, port, trusted_proxies=trust_proxy))
    with contextlib.suppress(KeyboardInterrupt):
        server.run()
    if not server.started:
        raise fail(f"could not listen on {host}:{port} (is another server using it?)")
