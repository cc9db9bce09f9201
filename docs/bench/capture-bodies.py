# A server that appends every POSTed (uncompressed) body to a file and answers 200: the
# exact NDJSON a `logship ship --no-gzip` run sends, for the gzip comparisons
# (cpu-per-event.sh, compress-levels.sh). Usage: python3 capture-bodies.py PORT FILE
import http.server, sys
out = open(sys.argv[2], "wb")
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        out.write(self.rfile.read(int(self.headers["Content-Length"]))); out.flush()
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
