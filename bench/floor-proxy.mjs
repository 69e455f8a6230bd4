#!/usr/bin/env node
// The floor of any Node.js gateway on this machine: a bare proxy that parses the JSON body,
// sets the upstream model, forwards it through one undici pool and relays the response as it
// comes (no auth, no database, no logs). `npm run bench` measures it beside the gateway, in the
// same run, so the gateway's figures read against what Node.js itself costs here.
//
//   node bench/floor-proxy.mjs UPSTREAM_URL MODEL   → prints {"url", "pid"} once listening
import http from 'node:http';
import { Pool } from 'undici';

const [upstream, model] = process.argv.slice(2);
const pool = new Pool(upstream, { connections: 256, keepAliveTimeout: 60_000 });
const server = http.createServer(async (request, response) => {
  try {
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    body.model = model;
    const upstreamResponse = await pool.request({ path: request.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    response.writeHead(upstreamResponse.statusCode, { 'content-type': upstreamResponse.headers['content-type'] });
    for await (const chunk of upstreamResponse.body) response.write(chunk);
    response.end();
  } catch (error) {
    response.writeHead(502).end(String(error));
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}`, pid: process.pid })}\n`));
process.on('SIGTERM', () => server.close(() => pool.close().then(() => process.exit(0))));
