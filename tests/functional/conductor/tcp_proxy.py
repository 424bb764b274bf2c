"""A TCP forwarder: killing it is an outage for the processes that connect through it, and
nobody else. ``python tcp_proxy.py PORT [--upstream HOST:PORT] [--listen ADDRESS]``; the
upstream defaults to the machine's RabbitMQ, the listening address to 127.0.0.1."""

from __future__ import annotations

import argparse
import socket
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


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("port", type=int)
    parser.add_argument("--upstream", type=_address, default=UPSTREAM)
    parser.add_argument("--listen", default="127.0.0.1")
    args = parser.parse_args()
    main(args.port, args.upstream, args.listen)
