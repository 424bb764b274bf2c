"""A TCP forwarder in front of the machine's RabbitMQ: killing it is a broker outage for
the processes that connect through it, and nobody else (``python tcp_proxy.py PORT``)."""

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


def main(port: int) -> None:
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    print("ready", flush=True)
    while True:
        client, _ = listener.accept()
        try:
            upstream = socket.create_connection(UPSTREAM)
        except OSError:
            client.close()
            continue
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=_pipe, args=(a, b), daemon=True).start()


if __name__ == "__main__":
    main(int(sys.argv[1]))
