/**
 * A local HTTP server on 127.0.0.1 for the download tests: serves fixed bodies by path (query
 * string included), answers 404 otherwise, and records every requested path.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FileServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Paths requested so far, in order (with their query strings). */
  requests: string[];
  close(): Promise<void>;
}

/** `routes` maps a request path (e.g. `/data/test.jsonl`, `/rows?dataset=a%2Fb&...`) to its body. */
export async function startFileServer(routes: Record<string, string | Uint8Array | (() => string | Uint8Array)>): Promise<FileServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const target = request.url ?? '/';
    requests.push(target);
    const route = routes[target];
    if (route === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const body = typeof route === 'function' ? route() : route;
    response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
