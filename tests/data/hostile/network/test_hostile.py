import os
import socket


def test_reaches_the_host_listener():
    port = int(os.environ["HOSTILE_PORT"])
    socket.create_connection(("127.0.0.1", port), timeout=2).close()
