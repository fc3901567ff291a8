#!/usr/bin/env python3
"""An OpenAI-compatible Chat Completions server that answers at once, for
bench/agent.sh. The first ROUNDS-1 requests get one tool call to `noop`,
the last a short text. It records, per request, when the request arrived and
when the answer was sent (time.monotonic() is not shared across processes,
so CLOCK_REALTIME via time.time() is used), one JSON line each, in LOG."""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROUNDS = int(sys.argv[2])
LOG = open(sys.argv[3], "a", buffering=1)
count = 0


def chunk(delta, finish=None):
    return "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "model": "m",
                                  "choices": [{"index": 0, "delta": delta,
                                               "finish_reason": finish}]}) + "\n\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else headers and body wait on delayed ACKs

    def log_message(self, *args):
        pass

    def do_POST(self):
        global count
        arrived = time.time()
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        count += 1
        if count < ROUNDS:
            body = chunk({"role": "assistant", "tool_calls": [
                {"index": 0, "id": "call_%d" % count, "type": "function",
                 "function": {"name": "noop", "arguments": "{}"}}]}) + chunk({}, "tool_calls")
        else:
            body = chunk({"role": "assistant", "content": "done"}) + chunk({}, "stop")
        body += "data: [DONE]\n\n"
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        LOG.write(json.dumps({"n": count, "arrived": arrived, "answered": time.time()}) + "\n")


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
