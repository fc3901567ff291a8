#!/usr/bin/env python3
# A scripted MCP server over Streamable HTTP for the transport's tests: the
# path picks a behaviour (JSON answers, SSE answers, a stream that ends or
# breaks and must be resumed with Last-Event-ID, an expired session, bearer
# checks, HTTP errors). It listens on 127.0.0.1 on a free port, prints
# "PORT <n>", and keeps every request it gets; GET /_log returns them.
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOG = []
LOG_LOCK = threading.Lock()
CONTINUE = threading.Event()  # /sse: the client asked the slow tool to finish


def result(message_id, value):
    return {"jsonrpc": "2.0", "id": message_id, "result": value}


def initialize_result(message_id):
    return result(message_id, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                               "serverInfo": {"name": "scripted", "version": "1"}})


def echo_result(message):
    args = message.get("params", {}).get("arguments", {})
    return result(message["id"], {"content": [{"type": "text", "text": args.get("text", "")}]})


def event(data, event_id=None, retry=None):
    text = ""
    if event_id is not None:
        text += f"id: {event_id}\n"
    if retry is not None:
        text += f"retry: {retry}\n"
    text += "data: " + (json.dumps(data) if data is not None else "") + "\n\n"
    return text.encode()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, body):
        with LOG_LOCK:
            LOG.append({"method": self.command, "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": body})

    def mode(self):
        return self.path.strip("/").split("/")[0]

    # Answers -----------------------------------------------------------

    def send_json(self, status, value, session=None):
        body = value.encode() if isinstance(value, str) else json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if session:
            self.send_header("Mcp-Session-Id", session)
        self.end_headers()
        self.wfile.write(body)

    def send_plain(self, status, text, content_type="text/plain"):
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def accepted(self):
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def start_stream(self, session=None, chunked=False):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        if session:
            self.send_header("Mcp-Session-Id", session)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def chunk(self, data):
        self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
        self.wfile.flush()

    def hold_open(self):
        # Keeps a stream open, sending comments, until the client leaves.
        try:
            while True:
                time.sleep(0.05)
                self.wfile.write(b": still here\n\n")
                self.wfile.flush()
        except OSError:
            pass

    # Methods -----------------------------------------------------------

    def do_GET(self):
        if self.path == "/_log":
            with LOG_LOCK:
                self.send_json(200, LOG)
            return
        self.record(None)
        mode = self.mode()
        last = self.headers.get("Last-Event-ID")
        if mode == "sse":
            self.start_stream()
            if last is None:
                self.wfile.write(event({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"},
                                       event_id="g1", retry=20))
                return  # the stream ends: the client must come back with g1
            self.wfile.write(event({"jsonrpc": "2.0", "method": "notifications/message",
                                    "params": {"after": last}}, event_id="g2"))
            self.hold_open()
        elif mode in ("resume", "break") and last is not None:
            # The rest of the tools/call stream: its response, then the
            # stream stays open (the client must stop reading by itself).
            self.start_stream()
            self.wfile.write(event(result(7, {"content": [{"type": "text",
                                                           "text": "resumed after " + last}]}),
                                   event_id="r3"))
            self.hold_open()
        else:
            self.send_plain(405, "Method Not Allowed")

    def do_DELETE(self):
        self.record(None)
        self.send_plain(200 if self.mode() != "json" else 405, "")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length).decode()
        self.record(raw)
        message = json.loads(raw)
        mode = self.mode()
        method = message.get("method")
        is_request = method is not None and "id" in message
        if mode == "auth":
            if (self.headers.get("Authorization") != "Bearer secret-token"
                    or self.headers.get("X-Team") != "blue"):
                self.send_plain(401, "\n  Unauthorized: bad token\nsecond line")
                return
        if mode == "expire" and self.headers.get("Mcp-Session-Id"):
            self.send_plain(404, "Session not found")
            return
        if mode == "expire400" and self.headers.get("Mcp-Session-Id"):
            # What servers built on the SDK's examples answer instead of 404.
            self.send_plain(400, "Bad Request: No valid session ID provided")
            return
        if not is_request:
            if method == "notifications/test/continue":
                CONTINUE.set()
            self.accepted()
            return
        session = "s-" + mode
        if method == "initialize":
            self.send_json(200, initialize_result(message["id"]), session)
            return
        if method == "test/batch":  # a batch answer, as protocol 2025-03-26 allowed
            self.send_json(200, [{"jsonrpc": "2.0", "method": "notifications/progress"},
                                 result(message["id"], {"batched": True})])
            return
        if method != "tools/call":
            self.send_json(200, result(message["id"], {}))
            return
        if mode == "sse":
            self.sse_tool(message)
        elif mode in ("resume", "resume405"):
            self.start_stream()
            self.wfile.write(event(None, event_id="r1", retry=30))
            self.wfile.write(event({"jsonrpc": "2.0", "method": "notifications/progress",
                                    "params": {"progress": 1}}, event_id="r2"))
        elif mode == "break":
            self.start_stream(chunked=True)
            self.chunk(event(None, event_id="r1", retry=30))
            self.chunk(event({"jsonrpc": "2.0", "method": "notifications/progress",
                              "params": {"progress": 1}}, event_id="r2"))
            self.wfile.write(b"40\r\ndata: {\"cut")  # a chunk cut short, then no end
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        elif mode == "noid":
            self.start_stream()
            self.wfile.write(event({"jsonrpc": "2.0", "method": "notifications/progress",
                                    "params": {"progress": 1}}))
        elif mode == "error":
            self.send_plain(500, "database on fire\nTraceback: ...")
        elif mode == "html":
            self.send_plain(200, "<html>hello</html>", "text/html")
        elif mode == "garbage":
            self.send_plain(200, "{not json", "application/json")
        else:
            self.send_json(200, echo_result(message))

    def sse_tool(self, message):
        # The progress goes out at once; the response only after the client
        # POSTed notifications/test/continue, which it can only do if it
        # handed the progress on before the stream ended.
        self.start_stream(session="s-sse")
        self.wfile.write(event({"jsonrpc": "2.0", "method": "notifications/progress",
                                "params": {"progress": 1}}))
        self.wfile.flush()
        if message["params"]["name"] == "slow":
            CONTINUE.wait(60)
            CONTINUE.clear()
        self.wfile.write(event(echo_result(message)))


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print("PORT", server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
