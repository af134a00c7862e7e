import os
import socket
import threading

import pytest


def test_a_server_and_a_client_talk_on_127_0_0_1():
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]

        def echo_upper():
            connection, _ = server.accept()
            with connection:
                connection.sendall(connection.recv(64).upper())

        thread = threading.Thread(target=echo_upper)
        thread.start()
        with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
            client.sendall(b"ping")
            assert client.recv(64) == b"PING"
        thread.join(5)


def test_localhost_resolves_to_the_loopback():
    with socket.create_server(("localhost", 0)) as server:
        port = server.getsockname()[1]
        with socket.create_connection(("localhost", port), timeout=5):
            pass


def test_the_host_stays_out_of_reach():
    # The harness listens on the host's loopback and on its outside address.
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", int(os.environ["HOSTILE_PORT"])), timeout=2)
    host, port = os.environ["HOSTILE_OUTSIDE_ADDR"].rsplit(":", 1)
    with pytest.raises(OSError):
        socket.create_connection((host, int(port)), timeout=2)
