import socket


def connect(host, port, timeout=None):
    """Open a connection, waiting at most ``timeout`` seconds."""
    return socket.create_connection((host, port), timeout)
