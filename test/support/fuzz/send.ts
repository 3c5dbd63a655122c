/**
 * Sends raw HTTP requests on kept-alive connections. Node's http client, not fetch: fetch
 * resolves `.` and `..` segments and refuses some bytes, and the fuzzer must send what it made.
 */
import http from 'node:http';
import type { Answer } from './oracle';

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function once(
  url: URL,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        agent,
        headers:
          body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(Object.assign(error, { reusedSocket: request.reusedSocket })),
    );
    request.end(body);
  });
}

export async function send(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const url = new URL(base);
  try {
    return await once(url, method, path, headers, body);
  } catch (error) {
    // A kept-alive socket that the server closed while idle fails before the request is read:
    // send it again on a new one (Node's documented remedy), once.
    const failed = error as NodeJS.ErrnoException & { reusedSocket?: boolean };
    if (failed.reusedSocket && failed.code === 'ECONNRESET') return once(url, method, path, headers, body);
    throw error;
  }
}

export function closeConnections(): void {
  agent.destroy();
}
