#!/usr/bin/env python3
"""An Anthropic Messages server that answers at once and emulates the prompt
cache, for bench/prompt-cache.sh. The first ROUNDS-1 requests get one tool
call to `noop`, the last a short text.

The cache, as Anthropic documents it: a request's prefix (tools, then the
system prompt, then the messages) up to each `cache_control` breakpoint is
written to the cache; a later request whose prefix up to one of its
breakpoints, or at one of the 20 block boundaries before it, equals a
written one reads it. Usage reports what was read
(cache_read_input_tokens), written (cache_creation_input_tokens) and the
rest (input_tokens). Tokens are counted as bytes / 4 of the canonical JSON
(the markers themselves left out)."""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROUNDS = int(sys.argv[2])
count = 0
cached = set()


def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value


def blocks(body):
    """The request as a list of (block, has_breakpoint), in cache order."""
    out = [(t, "cache_control" in t) for t in body.get("tools", [])]
    system = body.get("system", [])
    if isinstance(system, str):
        system = [{"type": "text", "text": system}]
    out += [(b, "cache_control" in b) for b in system]
    for m in body["messages"]:
        content = m["content"]
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        out += [({"role": m["role"], "block": b}, "cache_control" in b) for b in content]
    return out


def tokens(text):
    return len(text) // 4


def usage(body):
    # The prefix at every block boundary; at each breakpoint the cache is
    # looked up there and at up to 20 boundaries before it, longest first.
    prefixes, marks = [], []
    prefix = ""
    for block, mark in blocks(body):
        prefix += json.dumps(strip(block), sort_keys=True)
        prefixes.append(prefix)
        if mark:
            marks.append(len(prefixes) - 1)
    total = tokens(prefix)
    read = 0
    for i in marks:
        for j in range(i, max(-1, i - 21), -1):
            if prefixes[j] in cached:
                read = max(read, tokens(prefixes[j]))
                break
    last = tokens(prefixes[marks[-1]]) if marks else 0
    written = max(0, last - read)
    for i in marks:
        cached.add(prefixes[i])
    return {"input_tokens": total - read - written, "cache_read_input_tokens": read,
            "cache_creation_input_tokens": written, "output_tokens": 10}


def event(name, data):
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_POST(self):
        global count
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        count += 1
        u = usage(body)
        out = event("message_start", {"type": "message_start", "message": {
            "id": "msg", "role": "assistant", "content": [], "usage": u}})
        if count < ROUNDS:
            out += event("content_block_start", {"type": "content_block_start", "index": 0,
                         "content_block": {"type": "tool_use", "id": f"toolu_{count}",
                                           "name": "noop", "input": {}}})
            out += event("content_block_delta", {"type": "content_block_delta", "index": 0,
                         "delta": {"type": "input_json_delta", "partial_json": "{}"}})
            reason = "tool_use"
        else:
            out += event("content_block_start", {"type": "content_block_start", "index": 0,
                         "content_block": {"type": "text", "text": ""}})
            out += event("content_block_delta", {"type": "content_block_delta", "index": 0,
                         "delta": {"type": "text_delta", "text": "done"}})
            reason = "end_turn"
        out += event("content_block_stop", {"type": "content_block_stop", "index": 0})
        out += event("message_delta", {"type": "message_delta", "delta": {"stop_reason": reason},
                                       "usage": {"output_tokens": 10}})
        out += event("message_stop", {"type": "message_stop"})
        data = out.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
