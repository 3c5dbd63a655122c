/**
 * The HTTP server around the app. Node's limit on the request line and headers is raised to
 * 64 KiB so that a long URL reaches the app, which answers it 414 with a problem (the app's limit
 * is 8 KiB); past 64 KiB Node stops reading and the answer is a 431 problem written here.
 */
import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express, NextFunction, Request, Response } from 'express';
import { ApiError } from '../../platform/errors';
import { newId } from '../../platform/ids';

const MAX_HEADER_BYTES = 64 * 1024;
const MAX_URL_BYTES = 8 * 1024;

export function createHttpServer(app: Express): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, app);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
    if (error.code !== 'HPE_HEADER_OVERFLOW')
      return void socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    const problem = new ApiError(
      431,
      'headers_too_large',
      'The request line and headers are over 64 KiB.',
    ).toProblem(newId('req'));
    const body = JSON.stringify(problem);
    socket.end(
      `HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  return server;
}

/** First of all middleware: a URL over 8 KiB is refused before anything reads it. */
export function refuseLongUrls() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (Buffer.byteLength(req.originalUrl) <= MAX_URL_BYTES) next();
    else next(new ApiError(414, 'uri_too_long', 'The URL is over 8 KiB: send long values in a JSON body.'));
  };
}
