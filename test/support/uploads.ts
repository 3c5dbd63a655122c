/** Uploads sent by hand, for tests of what the service does with a body that is slow, stalls or is abandoned. */
import { randomUUID } from 'node:crypto';
import http from 'node:http';

/** Starts a photo upload by hand and sends `bytes` of its first photo; the caller ends or abandons it. */
export function startUpload(
  baseUrl: string,
  key: string,
  jobId: string,
  bytes: number,
): { req: http.ClientRequest; answer: Promise<{ status: number; body: string }> } {
  const boundary = `b${randomUUID()}`;
  const url = new URL(`${baseUrl}/api/v1/jobs/${jobId}/photos`);
  const req = http.request(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
  });
  req.write(
    `--${boundary}\r\nContent-Disposition: form-data; name="meta"\r\n\r\n${JSON.stringify({ operation_id: randomUUID() })}\r\n`,
  );
  req.write(
    `--${boundary}\r\nContent-Disposition: form-data; name="photo"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
  );
  req.write(Buffer.alloc(bytes, 7));
  return { req, answer };
}
