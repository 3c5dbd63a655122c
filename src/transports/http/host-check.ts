/**
 * DNS-rebinding protection for /mcp (required by the MCP specification for HTTP transports): a
 * page on evil.example whose name is made to resolve to this machine can make a browser send
 * requests here, but the browser still says `Host: evil.example` and `Origin: http://evil.example`.
 * So /mcp answers only requests addressed to one of the service's own names, and, when a browser
 * says where the request comes from (Origin), only from one of those names or an origin the
 * operator allowed. Clients that are not browsers send no Origin, which is fine.
 *
 * It runs before the key and before the body is read: a foreign request learns nothing else.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Config } from '../../platform/config';
import { ApiError } from '../../platform/errors';
import { hostKey, originKey } from '../../platform/hosts';

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** The service's own names: PUBLIC_URL's host, HOST:PORT, loopback at that port, and the extras. */
function ownHosts(config: Config, port: number | undefined): Set<string> {
  const names = [new URL(config.publicUrl).host, ...config.mcp.allowedHosts];
  // The port the request came in on, beside PORT: they differ only when the service was told to
  // listen on any free port (tests), and then the real one is what clients put in Host.
  // HOST as a name, unless it is "every interface" (0.0.0.0, ::), which no client should name.
  const host = ['0.0.0.0', '::', '[::]'].includes(config.host)
    ? []
    : [config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host];
  for (const p of new Set([config.port, port])) {
    if (p === undefined) continue;
    names.push(...[...host, ...LOOPBACK].map((name) => `${name}:${p}`));
  }
  return new Set(names.map(hostKey).filter((key): key is string => key !== null));
}

export function checkMcpHost(config: Config) {
  const origins = new Set(
    config.mcp.allowedOrigins.map(originKey).filter((key): key is string => key !== null),
  );
  const byPort = new Map<number | undefined, Set<string>>();
  return (req: Request, _res: Response, next: NextFunction): void => {
    const port = req.socket.localPort;
    let hosts = byPort.get(port);
    if (!hosts) {
      hosts = ownHosts(config, port);
      byPort.set(port, hosts);
    }
    const host = hostKey(req.headers.host ?? '');
    if (host === null || !hosts.has(host)) {
      next(
        new ApiError(
          403,
          'forbidden_host',
          `This MCP endpoint does not answer to the host "${req.headers.host ?? ''}". Use one of the service's own names, or add it to MCP_ALLOWED_HOSTS.`,
        ),
      );
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const key = originKey(origin);
      const fromOwnName = key !== null && hosts.has(hostKey(new URL(key).host) ?? '');
      if (!fromOwnName && (key === null || !origins.has(key))) {
        next(
          new ApiError(
            403,
            'forbidden_origin',
            `Requests from the origin "${origin}" are not allowed here. Add it to MCP_ALLOWED_ORIGINS to allow a browser client there.`,
          ),
        );
        return;
      }
    }
    next();
  };
}
