"""gunicorn's own refusals in the error envelope; whether a peer has sent anything."""

from __future__ import annotations

import json
import socket

from magnum_api import wsgi_server


def test_gunicorns_error_is_an_envelope_and_closes_the_connection():
    ours, theirs = socket.socketpair()
    with ours, theirs:
        wsgi_server.write_error(ours, 400, "Bad Request", "Invalid request line. Too long")
        ours.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := theirs.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin1").split("\r\n")
    assert lines[0] == "HTTP/1.1 400 Bad Request"
    assert "Connection: close" in lines and "Content-Type: application/json" in lines
    assert f"Content-Length: {len(body)}" in lines
    assert json.loads(body) == {"errors": [{
        "request_id": "", "code": "client", "status": 400, "title": "Invalid request line",
        "detail": "Invalid request line. Too long", "links": []}]}


def test_pending_data_sees_bytes_and_a_close_without_reading_them():
    ours, theirs = socket.socketpair()
    with ours, theirs:
        assert not wsgi_server.pending_data(ours)
        theirs.sendall(b"G")
        assert wsgi_server.pending_data(ours) and wsgi_server.pending_data(ours)
        assert ours.recv(1) == b"G"  # peeking consumed nothing
        theirs.close()
        assert wsgi_server.pending_data(ours)
