import os
import socket


def test_reaches_the_host_listener():
    port = int(os.environ["HOSTILE_PORT"])
    socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_reaches_the_host_by_its_outside_address():
    host, port = os.environ["HOSTILE_OUTSIDE_ADDR"].rsplit(":", 1)
    socket.create_connection((host, int(port)), timeout=2).close()
