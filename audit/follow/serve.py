"""``audit follow --serve``: the live page, read-only, on loopback unless told otherwise.

A Starlette application served by uvicorn in a thread of its own beside the follow: ``GET /``
is the page as it stands (``board``), ``GET /events`` the changes as server-sent events (a
``reset`` with the whole page first, so a page that reconnects misses nothing). Nothing else:
every other method is refused (405), there is no form and no action. The page's
Content-Security-Policy allows its own script (by its hash) and its own event stream, nothing
else; a request naming another host than the one served (a DNS rebinding) is refused. Both
libraries are the ``live`` extra: small, kept up to date, and the usual pair for a page that
streams.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import ipaddress
import socket
import threading
from importlib import resources
from typing import TYPE_CHECKING

from ..reporters.html.markup import Html

if TYPE_CHECKING:
    from .board import Board

#: seconds between two comments on an idle event stream (keeps proxies from closing it)
KEEPALIVE = 15.0


class ServeError(Exception):
    """The page cannot be served as asked: exit 2."""


def address(text: str, public: bool) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6): a loopback host unless ``public``."""
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ServeError(f"--serve {text!r}: expected HOST:PORT, e.g. 127.0.0.1:8765")
    if not public:
        try:
            loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise ServeError(
                f"--serve {text}: {host} is not a loopback address; the page shows the findings "
                "to whoever reaches it: give --serve-public to serve it there"
            )
    return host, int(port)


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


class Server:
    """The page served in a thread; ``url`` once started."""

    def __init__(self, board: Board, host: str, port: int, public: bool) -> None:
        try:
            import uvicorn
            from starlette.applications import Starlette
            from starlette.middleware import Middleware
            from starlette.middleware.trustedhost import TrustedHostMiddleware
            from starlette.responses import HTMLResponse, StreamingResponse
            from starlette.routing import Route
        except ImportError:
            raise ServeError(
                "--serve needs the live extra: pip install 'del-audit[live]'"
            ) from None
        from .board import page

        self.board = board
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        try:
            self.socket = socket.socket(family, socket.SOCK_STREAM)
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind((host, port))
            self.socket.listen(64)
        except OSError as err:
            raise ServeError(f"--serve {host}:{port}: {err.strerror or err}") from None
        port = self.socket.getsockname()[1]
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        self.url = f"http://{shown}:{port}/"
        script = _asset("live.js")
        digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
        policy = (
            f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; "
            "connect-src 'self'; base-uri 'none'; form-action 'none'"
        )
        css = _asset_of_report("page.css") + _asset("live.css")
        headers = {
            "Cache-Control": "no-store",
            "X-Content-Type-Options": "nosniff",
            # (a page in a frame is told by the header alone, not by the page's own policy)
            "Content-Security-Policy": f"{policy}; frame-ancestors 'none'",
        }

        async def home(request):
            return HTMLResponse(page(board.snapshot(), script, policy, css), headers=headers)

        async def events(request):
            loop = asyncio.get_running_loop()
            queue: asyncio.Queue = asyncio.Queue()

            def listener(kind: str, data: str) -> None:  # (the follow's thread)
                loop.call_soon_threadsafe(queue.put_nowait, (kind, data))

            first = board.snapshot(listener)

            async def stream():
                import json

                try:
                    yield _event("reset", json.dumps(first))
                    while True:
                        try:
                            kind, data = await asyncio.wait_for(queue.get(), KEEPALIVE)
                        except TimeoutError:
                            yield ": still here\n\n"
                            continue
                        yield _event(kind, data)
                finally:
                    board.forget(listener)

            return StreamingResponse(
                stream(),
                media_type="text/event-stream",
                headers={**headers, "X-Accel-Buffering": "no"},
            )

        hosts = ["*"] if public else [host, shown, "localhost", "127.0.0.1", "[::1]"]
        app = Starlette(
            routes=[Route("/", home, methods=["GET"]), Route("/events", events, methods=["GET"])],
            middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
        )
        config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run,
            kwargs={"sockets": [self.socket]},
            name="audit-follow-page",
            daemon=True,
        )

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(5)
        self.socket.close()


def _event(kind: str, data: str) -> str:
    return f"event: {kind}\ndata: {data}\n\n"


def _asset_of_report(name: str) -> Html:
    """The HTML report's own style sheet: the live page looks as the morning report does."""
    return Html(resources.files("audit.reporters.html").joinpath(name).read_text(encoding="utf-8"))
