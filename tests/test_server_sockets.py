"""The Panel server's websockets send without delay (playground.server_sockets): a served
playground's websocket has TCP_NODELAY set, so a reply's frames leave at once instead of
waiting for the browser's delayed acknowledgement of the first (docs/server.md, "Load")."""

from __future__ import annotations

import asyncio
import gc
import socket
import time
import urllib.request

import panel as pn
from bokeh.protocol import Protocol
from bokeh.protocol.receiver import Receiver
from bokeh.util.token import generate_jwt_token, generate_session_id
from panel.io.server import WSHandler
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from playground.app import Playground
from playground.server_sockets import send_at_once


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _open_session(port: int):
    """A websocket to the app, as a page opens it, with the document pulled."""
    request = HTTPRequest(f"ws://127.0.0.1:{port}/app/ws",
                          headers={"Origin": f"http://127.0.0.1:{port}"})
    ws = await websocket_connect(request, subprotocols=[
        "bokeh", generate_jwt_token(generate_session_id())])
    receiver = Receiver(Protocol())
    seen = []
    while len(seen) < 1:  # the ACK
        message = await receiver.consume(await ws.read_message())
        if message is not None:
            seen.append(message.msgtype)
    return ws, seen


def _server_websockets():
    return [h for h in gc.get_objects() if isinstance(h, WSHandler) and h.ws_connection]


def test_a_served_playgrounds_websocket_sends_without_delay(monkeypatch):
    monkeypatch.setenv("GRADPLAY_WORKERS", "0")  # no worker processes: not what is tested here
    # nor the server's memory handling, which would freeze this test process's heap
    import playground.app as app_module
    monkeypatch.setattr(app_module, "session_opened", lambda: None)
    monkeypatch.setattr(app_module, "session_closed", lambda session_context: None)
    port = _free_port()
    server = pn.serve({"app": lambda: Playground()}, port=port, address="127.0.0.1",
                      show=False, threaded=True, websocket_origin=[f"127.0.0.1:{port}"])
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:  # the page first (its session runs the app), then its websocket
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/app", timeout=10) as r:
                    assert r.status == 200
                ws, seen = asyncio.run(asyncio.wait_for(_open_session(port), 10))
                break
            except OSError:
                time.sleep(0.2)
        assert seen == ["ACK"]
        handlers = _server_websockets()
        assert handlers, "no websocket on the server side"
        for h in handlers:
            sock = h.ws_connection.stream.socket
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        server.stop()


def test_the_handler_is_given_no_delay_once_and_before_its_own_open(monkeypatch):
    calls = []

    def panels_open(self, *args, **kwargs):
        calls.append(("open", args, self.nodelay))

    class Handler:
        nodelay = False

        def set_nodelay(self, value):
            calls.append(("nodelay", value))
            self.nodelay = value

    monkeypatch.setattr(WSHandler, "open", panels_open)
    send_at_once()
    send_at_once()  # installed once: one wrapper, not two
    WSHandler.open(Handler(), "x")
    assert calls == [("nodelay", True), ("open", ("x",), True)]
