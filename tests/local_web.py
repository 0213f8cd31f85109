"""A small HTTP server on 127.0.0.1 for the tests of the web tools (search APIs, pages): each
path answered by a route, every request counted."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable
from urllib.parse import parse_qs, urlsplit


class Server:
    """A thread serving ``routes`` (path -> (status, headers, body)) on 127.0.0.1 until ``stop``."""

    def __init__(self, routes: dict[str, Callable[[dict], tuple[int, dict, bytes]]]):
        self.routes = routes
        self.seen: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                parts = urlsplit(self.path)
                outer.seen.append(self.path)
                route = outer.routes.get(parts.path)
                status, headers, body = route({"query": parse_qs(parts.query)}) if route else (404, {"Content-Type": "text/plain"}, b"no such page")
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
