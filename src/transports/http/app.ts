/**
 * The Express application. Every request: request id and log line (./request-log), then for /api/v1 and /mcp
 * the API key (or an assistant's access token, ../oauth) and its rate limit (for MCP, one unit per tool call), then the route, which
 * checks the request against the spec (platform/validation) before the handler.
 */
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import spec from '../../generated/openapi.json';
import { RateLimiter } from '../../platform/rate-limit';
import { chargeEachRequest, requireAdminToken, requireCredential } from '../shared/credentials';
import { chargeMcpMessages } from '../mcp/charges';
import { addAdminRoutes, addToolRoutes, unmatchedRoute } from './routes';
import { mcpEndpoint } from '../mcp/endpoint';
import { checkMcpHost } from './host-check';
import { refuseLongUrls } from './server';
import { problemMiddleware } from './http-errors';
import { requestLog } from './request-log';
import { ApiError } from '../../platform/errors';
import { feedHorizon } from '../../platform/changes';
import { CompanyBytePace, CompanySlots } from '../../platform/fair-share';
import { addUploadRoutes, linkRoutes } from '../files/media-routes';
import { exportRoutes } from '../pages/export-routes';
import { addFormVerifyRoute, signingRoutes } from '../pages/signing-routes';
import { authorizationServer, protectedResources } from '../oauth/authorization-server';
import type { Deps } from '../../domain/services';
import { toolPipeline } from '../../tools';

const JSON_LIMIT = '1mb';

/** `redis`: where every node keeps its rate-limit counts (REDIS_URL); null counts on this node. */
export function createApp(given: Omit<Deps, 'pipeline'> & { logger: Logger; redis?: Redis | null }): Express {
  const slots = new CompanySlots(given.config.companyConcurrency);
  const deps: Deps & { logger: Logger; redis?: Redis | null } = {
    ...given,
    pipeline: toolPipeline({ ...given, slots }),
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.set('trust proxy', deps.config.trustProxy);

  app.use(requestLog(deps.logger));
  app.use(refuseLongUrls());
  app.get('/healthz', async (_req, res) => {
    res.json({ status: 'ok', change_feed: await feedHorizon(deps.db), jobs: await deps.media.queue.depth() });
  });
  // The committed spec names the default address; the served one names where this service is.
  const servedSpec = { ...spec, servers: [{ url: deps.config.publicUrl, description: 'This service' }] };
  app.get('/api/v1/openapi.json', (_req, res) => {
    res.json(servedSpec);
  });

  const json = express.json({ limit: JSON_LIMIT });
  const limiter = new RateLimiter(deps.config.rateLimit, deps.redis ?? null);
  const resources = protectedResources(deps.config.publicUrl);
  // The key and its rate limit come before the body is read: a request without a valid key is a
  // 401 whatever its body, and every answer to a key (a 413 or bad JSON too) counts and carries
  // the RateLimit headers. MCP is charged once its messages are read: by the tool calls in them.
  app.use('/api/v1', requireCredential(deps.db, limiter, resources.api), chargeEachRequest(limiter), json);
  // Multipart uploads, signed links and the pages have routes of their own.
  // Uploads have a share of their own: one company's big uploads cannot take the node's CPU and
  // disk from the others, nor hold the slots of its own tool calls.
  const uploads = {
    slots: new CompanySlots(deps.config.uploadsPerCompany),
    pace: new CompanyBytePace(deps.config.uploadBytesPerSecond),
  };
  addUploadRoutes(app, deps, uploads);
  addFormVerifyRoute(app, deps);
  app.use(linkRoutes(deps, limiter, uploads));
  app.use(exportRoutes(deps, limiter));
  app.use(signingRoutes(deps, limiter));
  app.use(authorizationServer(deps, limiter));
  app.use('/admin/v1', requireAdminToken(deps.config.adminToken, limiter), json);
  app.use('/mcp', checkMcpHost(deps.config)); // DNS-rebinding protection, before the key and the body
  app.post(
    '/mcp',
    requireCredential(deps.db, limiter, resources.mcp),
    json,
    chargeMcpMessages(limiter),
    mcpEndpoint(deps),
  );
  app.all('/mcp', () => {
    throw new ApiError(
      405,
      'method_not_allowed',
      'This MCP endpoint is stateless: send JSON-RPC messages with POST.',
      { headers: { Allow: 'POST' } },
    );
  });

  const tools = express.Router();
  addToolRoutes(tools, deps);
  addAdminRoutes(tools, deps);
  app.use(tools);
  app.use(unmatchedRoute());

  app.use(problemMiddleware());
  return app;
}
