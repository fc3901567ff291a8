#!/usr/bin/env python3
"""An OpenAI-compatible Chat Completions server for bench/subagent.sh: a
parent's prompt "parent" gets one call to the task tool (prompt "child"),
the subagent's prompt "child" a short text, the parent's follow-up (with the
tool result) its final text. One JSON line per request in LOG: who asked,
when it arrived and when the answer was sent (time.time(): shared across
processes)."""
import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = open(sys.argv[2], "a", buffering=1)


def chunk(delta, finish=None):
    return "data: " + json.dumps({"id": "c", "object": "chat.completion.chunk", "model": "m",
                                  "choices": [{"index": 0, "delta": delta,
                                               "finish_reason": finish}]}) + "\n\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_POST(self):
        arrived = time.time()
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        messages = request["messages"]
        users = [m for m in messages if m["role"] == "user"]
        who = "child" if users and users[-1]["content"] == "child" else "parent"
        if who == "child":
            body = chunk({"role": "assistant", "content": "child done"}) + chunk({}, "stop")
        elif messages[-1]["role"] == "tool":
            who = "parent-end"
            body = chunk({"role": "assistant", "content": "done"}) + chunk({}, "stop")
        else:
            body = chunk({"role": "assistant", "tool_calls": [
                {"index": 0, "id": "call_task", "type": "function",
                 "function": {"name": "task", "arguments": json.dumps({"prompt": "child"})}}]}) \
                + chunk({}, "tool_calls")
        data = (body + "data: [DONE]\n\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        LOG.write(json.dumps({"who": who, "arrived": arrived, "answered": time.time()}) + "\n")


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
