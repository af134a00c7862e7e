#!/usr/bin/env python3
"""A scripted model: an OpenAI-compatible chat-completions server that replays a
recorded trajectory, so that a real agent program (mini-swe-agent, aider) can be run
end to end without a real model.

    python3 replay_server.py NAME=TRAJECTORY.json [NAME=...] [--log FILE]

It listens on 127.0.0.1 on a free port and prints one line, `listening
http://127.0.0.1:PORT`, once it accepts connections. Each trajectory is served under
its own base URL, `http://127.0.0.1:PORT/NAME/v1` (give that as the agent's API base);
the model name in the request is not looked at.

A trajectory is a JSON list of the assistant's replies, in order. A reply is a string
(the message's text) or an object:

    {"expect": ["text the request's last user or tool message must contain", ...],
     "content": "the reply's text, or null",
     "tool_calls": [{"name": "bash", "arguments": {"command": "git status"}}]}

Each request is answered with the trajectory's next reply, streamed (`"stream": true`,
server-sent events) or not. A request that does not match the expected turn (the
trajectory is used up, or its last user or tool message lacks an `expect` text) is
answered with HTTP 500 and a message that names the trajectory, the turn and what was
missing; the turn is not consumed. `GET /_replay/status` returns, per trajectory, the
replies served and the distinct mismatches seen. `--log FILE` appends one JSON line per request.
"""

import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Trajectory:
    """One named list of replies and how far it has been served."""

    def __init__(self, name, path):
        self.name = name
        self.path = path
        with open(path, encoding="utf-8") as f:
            replies = json.load(f)
        if not isinstance(replies, list) or not replies:
            raise SystemExit(f"{path}: a trajectory is a non-empty JSON list of replies")
        self.replies = [normalize(reply, path, i) for i, reply in enumerate(replies)]
        self.served = 0
        self.mismatches = []
        self.lock = threading.Lock()

    def next_reply(self, messages):
        """The reply for this request and its turn, or raises Mismatch (turn kept)."""
        with self.lock:
            turn = self.served
            if turn >= len(self.replies):
                raise Mismatch(self, turn, f"the trajectory has only {len(self.replies)} replies", messages)
            last = last_observation(messages)
            missing = [text for text in self.replies[turn]["expect"] if text not in last]
            if missing:
                raise Mismatch(self, turn, f"the last user or tool message lacks {missing!r}", messages)
            self.served += 1
            return turn, self.replies[turn]


class Mismatch(Exception):
    def __init__(self, trajectory, turn, why, messages):
        last = last_observation(messages)
        self.message = (
            f"replay: request {turn + 1} to trajectory {trajectory.name!r} ({trajectory.path}) "
            f"does not match: {why}; its last user or tool message begins {last[:300]!r}"
        )
        if self.message not in trajectory.mismatches:  # an agent retrying repeats one
            trajectory.mismatches.append(self.message)
        super().__init__(self.message)


def normalize(reply, path, index):
    """A reply as {"expect": [...], "content": str|None, "tool_calls": [...]}."""
    if isinstance(reply, str):
        reply = {"content": reply}
    if not isinstance(reply, dict):
        raise SystemExit(f"{path}: reply {index + 1} is neither a string nor an object")
    unknown = set(reply) - {"expect", "content", "tool_calls", "comment"}
    if unknown:
        raise SystemExit(f"{path}: reply {index + 1} has unknown keys {sorted(unknown)}")
    expect = reply.get("expect", [])
    if isinstance(expect, str):
        expect = [expect]
    calls = []
    for number, call in enumerate(reply.get("tool_calls", [])):
        arguments = call["arguments"]
        calls.append(
            {
                "id": f"call_{index + 1}_{number + 1}",
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": arguments if isinstance(arguments, str) else json.dumps(arguments),
                },
            }
        )
    return {"expect": expect, "content": reply.get("content"), "tool_calls": calls}


def last_observation(messages):
    """The text of the last user or tool message of a chat request."""
    for message in reversed(messages or []):
        if message.get("role") in ("user", "tool"):
            content = message.get("content")
            if isinstance(content, list):  # content parts
                content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
            return content or ""
    return ""


def completion(reply, turn, model):
    """The chat.completion object for a reply."""
    message = {"role": "assistant", "content": reply["content"]}
    if reply["tool_calls"]:
        message["tool_calls"] = reply["tool_calls"]
    return {
        "id": f"chatcmpl-replay-{turn + 1}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(reply)}],
        "usage": usage(reply),
    }


def finish_reason(reply):
    return "tool_calls" if reply["tool_calls"] else "stop"


def usage(reply):
    completion_tokens = max(1, len(json.dumps(reply)) // 4)
    return {"prompt_tokens": 1, "completion_tokens": completion_tokens, "total_tokens": completion_tokens + 1}


def chunks(reply, turn, model, include_usage):
    """The chat.completion.chunk objects that stream a reply."""
    base = {"id": f"chatcmpl-replay-{turn + 1}", "object": "chat.completion.chunk", "created": int(time.time())}
    base["model"] = model

    def chunk(delta, finish=None):
        return dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish}])

    yield chunk({"role": "assistant", "content": ""})
    text = reply["content"] or ""
    for start in range(0, len(text), 64):
        yield chunk({"content": text[start : start + 64]})
    for index, call in enumerate(reply["tool_calls"]):
        function = call["function"]
        yield chunk(
            {
                "tool_calls": [
                    {
                        "index": index,
                        "id": call["id"],
                        "type": "function",
                        "function": {"name": function["name"], "arguments": function["arguments"]},
                    }
                ]
            }
        )
    yield chunk({}, finish_reason(reply))
    if include_usage:
        yield dict(base, choices=[], usage=usage(reply))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "replay/1"

    def log_message(self, format, *args):  # the --log file says more
        pass

    def do_GET(self):
        if self.path.rstrip("/") == "/_replay/status":
            status = {
                name: {"served": t.served, "replies": len(t.replies), "mismatches": t.mismatches}
                for name, t in self.server.trajectories.items()
            }
            return self.send_json(200, status)
        if self.path.rstrip("/").endswith("/v1/models"):
            return self.send_json(200, {"object": "list", "data": [{"id": "replay", "object": "model"}]})
        self.send_json(404, {"error": {"message": f"replay: no GET route {self.path}", "type": "not_found"}})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            request = json.loads(self.rfile.read(length) or b"{}")
        except ValueError as err:
            return self.send_json(400, {"error": {"message": f"replay: request body is not JSON: {err}"}})
        name, _, rest = self.path.strip("/").partition("/")
        trajectory = self.server.trajectories.get(name)
        if trajectory is None or rest.rstrip("/") not in ("v1/chat/completions", "chat/completions"):
            known = ", ".join(f"/{n}/v1/chat/completions" for n in self.server.trajectories)
            message = f"replay: no trajectory at {self.path}; known: {known}"
            self.record({"path": self.path, "error": message})
            return self.send_json(404, {"error": {"message": message, "type": "not_found"}})
        messages = request.get("messages", [])
        try:
            turn, reply = trajectory.next_reply(messages)
        except Mismatch as mismatch:
            print(mismatch.message, file=sys.stderr, flush=True)
            self.record({"trajectory": name, "error": mismatch.message})
            return self.send_json(500, {"error": {"message": mismatch.message, "type": "replay_mismatch"}})
        model = request.get("model", "replay")
        self.record({"trajectory": name, "turn": turn + 1, "stream": bool(request.get("stream"))})
        if request.get("stream"):
            include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
            return self.send_stream(chunks(reply, turn, model, include_usage))
        self.send_json(200, completion(reply, turn, model))

    def record(self, entry):
        if self.server.log:
            with self.server.log_lock, open(self.server.log, "a", encoding="utf-8") as log:
                log.write(json.dumps(entry) + "\n")

    def send_json(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_stream(self, events):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for event in events:
            self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trajectories", nargs="+", metavar="NAME=TRAJECTORY.json")
    parser.add_argument("--log", help="append one JSON line per request to this file")
    args = parser.parse_args()
    trajectories = {}
    for spec in args.trajectories:
        name, sep, path = spec.partition("=")
        if not sep or not name or "/" in name:
            parser.error(f"{spec!r}: give NAME=TRAJECTORY.json (NAME without '/')")
        trajectories[name] = Trajectory(name, path)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.trajectories = trajectories
    server.log = args.log
    server.log_lock = threading.Lock()
    print(f"listening http://127.0.0.1:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
