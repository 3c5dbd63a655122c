/**
 * A header-adding proxy for outside MCP tools that cannot send an Authorization header (the
 * conformance suite's `server --url`): it adds the given headers and forwards everything else as
 * it came, Host and Origin included, so that the service judges the tool's own Host and Origin
 * (the dns-rebinding scenario sends a foreign one and must see the service refuse it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HeaderProxy {
  url: string;
  /** Answers seen so far, by HTTP status (to tell, e.g., how many were 429s). */
  statuses: Map<number, number>;
  /** Requests seen so far, by their MCP-Protocol-Version header ('none' without one): the era a tool spoke. */
  protocolVersions: Map<string, number>;
  close(): Promise<void>;
}

// Hop-by-hop headers belong to each connection, not to the request (RFC 9110 §7.6.1).
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'upgrade', 'te', 'trailer']);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

export async function startHeaderProxy(
  target: string,
  add: Record<string, string>,
  port = 0,
): Promise<HeaderProxy> {
  const upstream = new URL(target);
  const statuses = new Map<number, number>();
  const protocolVersions = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const version = String(req.headers['mcp-protocol-version'] ?? 'none');
    protocolVersions.set(version, (protocolVersions.get(version) ?? 0) + 1);
    const forward = http.request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        // The incoming Host stays as it is: node uses a given host header instead of its own.
        headers: { ...endToEnd(req.headers), ...add },
      },
      (answer) => {
        const status = answer.statusCode ?? 502;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        res.writeHead(status, endToEnd(answer.headers));
        // Streamed, not buffered: an SSE answer reaches the tool event by event.
        answer.pipe(res);
      },
    );
    forward.on('error', (error) => {
      if (res.headersSent) {
        res.destroy(error);
        return;
      }
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${error.message}`);
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    statuses,
    protocolVersions,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
