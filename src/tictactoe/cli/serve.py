"""``ttt serve``: the browser app on a local web server."""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import sys
from pathlib import Path
from typing import Annotated

import typer

from tictactoe.cli.app import app
from tictactoe.cli.common import console, fail, reports_errors
from tictactoe.extras import require


def listen(host: str, port: int) -> list[socket.socket]:
    """Bind ``host``'s addresses on ``port`` (0: a free one, the same for all) as asyncio's
    ``create_server`` would, for uvicorn to listen on, so that a port in use is known before
    anything is created; raise OSError if one cannot be bound."""
    infos = dict.fromkeys(socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                             flags=socket.AI_PASSIVE))
    bound: list[socket.socket] = []
    try:
        for family, kind, proto, _, address in infos:
            sock = socket.socket(family, kind, proto)
            bound.append(sock)
            if os.name == "posix" and sys.platform != "cygwin":  # as asyncio does
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            if port == 0 and len(bound) > 1:  # the port the first address got
                address = (address[0], bound[0].getsockname()[1], *address[2:])
            sock.bind(address)
    except OSError:
        for sock in bound:
            sock.close()
        raise
    return bound


def why_not(err: OSError) -> str:
    """Why a port could not be bound, in a few words.

    >>> why_not(OSError(errno.EADDRINUSE, "Address already in use"))
    'the port is in use (is another server using it?)'
    """
    if err.errno == errno.EADDRINUSE:
        return "the port is in use (is another server using it?)"
    return str(err.strerror or err).lower()


def new_paths(path: Path) -> list[Path]:
    """``path`` and its folders that do not exist yet, the deepest first (what starting the
    server creates, to remove if it fails)."""
    missing = []
    while not path.exists() and path != path.parent:
        missing.append(path)
        path = path.parent
    return missing


def remove_new(paths: list[Path]) -> None:
    """Remove the new database (with its journal files) and its new folders, if empty."""
    database, folders = paths[0], paths[1:]
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(OSError):
            database.with_name(database.name + suffix).unlink()
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()


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
    shown = f"[{host}]" if ":" in host else host
    try:  # before the data folder is touched: a port in use leaves nothing behind
        sockets = listen(host, port)
    except OSError as err:
        raise fail(f"cannot listen on {shown}:{port}: {why_not(err)}") from None
    port = sockets[0].getsockname()[1]
    created = new_paths(folder / DATABASE_NAME)
    try:
        web = create_app(folder, allowed_hosts=hosts, public_history=local or public_history,
                         worker_memory_mb=worker_memory)
    except OSError as err:
        for sock in sockets:
            sock.close()
        raise fail(f"cannot use the data folder {folder}: {err}") from None
    if not local:
        console.print(f"[bold yellow]Warning:[/] listening on {host}, so other machines can "
                      "connect: anyone who can reach this port can play, and open the games "
                      "whose links they have. The history of every game is "
                      + ("shared (--public-history)." if public_history else
                         "private (--public-history shares it).")
                      + " Use the default 127.0.0.1 to keep it to this machine.",
                      soft_wrap=True)
    console.print(f"tictactoe is ready at [bold]http://{shown}:{port}/[/]  "
                  f"(games saved in {folder / DATABASE_NAME}; Ctrl-C stops it)", soft_wrap=True)
    server = GuardedServer(server_config(web, host, port, trusted_proxies=trust_proxy))
    try:
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=sockets)
    except SystemExit:  # uvicorn's exit when its start-up fails
        if server.started:
            raise
    finally:
        for sock in sockets:
            sock.close()
    if not server.started:
        web.state.store.close()
        if created:
            remove_new(created)
        raise fail(f"could not start the server on {shown}:{port}")
