"""A TCP forwarder: killing it is an outage for the processes that connect through it, and
nobody else. ``python tcp_proxy.py PORT [UPSTREAM_HOST:PORT] [LISTEN_ADDRESS]``; the upstream
defaults to the machine's RabbitMQ, the listening address to 127.0.0.1."""

from __future__ import annotations

import socket
import sys
import threading

UPSTREAM = ("127.0.0.1", 5672)


def _pipe(src: socket.socket, dst: socket.socket) -> None:
    try:
        while data := src.recv(65536):
            dst.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (src, dst):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def main(port: int, upstream: tuple[str, int] = UPSTREAM, listen: str = "127.0.0.1") -> None:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((listen, port))
    listener.listen(64)
    print("ready", flush=True)
    while True:
        client, _ = listener.accept()
        try:
            remote = socket.create_connection(upstream)
        except OSError:
            client.close()
            continue
        for a, b in ((client, remote), (remote, client)):
            threading.Thread(target=_pipe, args=(a, b), daemon=True).start()


if __name__ == "__main__":
    target = UPSTREAM
    if len(sys.argv) > 2:
        host, _, upstream_port = sys.argv[2].rpartition(":")
        target = (host, int(upstream_port))
    main(int(sys.argv[1]), target, sys.argv[3] if len(sys.argv) > 3 else "127.0.0.1")
