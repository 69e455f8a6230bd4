// GigaChat's OAuth endpoint (POST /api/v2/oauth) and the tokens it issues: an authorization
// key in `Authorization: Basic …`, a UUID in RqUID and a known scope give a token valid 30
// minutes, `{"access_token", "expires_at"}` (unix ms). The simulator counts what it issued
// (GET /__stats, and the x-sim-tokens-issued header of each answer) so tests can prove that
// the gateway reuses a token; chat and embeddings refuse a token it did not issue or that expired.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { UsageBook } from '../../usage-book.js';
import { perSimulator, readRawBody, sendJsonAnswer } from '../prefixed-wire.js';
import { GigachatSimError } from './errors.js';

export const tokenLifetimeMs = 30 * 60 * 1000;
const scopes = new Set(['GIGACHAT_API_PERS', 'GIGACHAT_API_B2B', 'GIGACHAT_API_CORP']);
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const tokensOf = perSimulator(() => ({ issued: 0, expiries: new Map<string, number>() }));

export async function handleOauth(request: IncomingMessage, response: ServerResponse, book: UsageBook): Promise<void> {
  const authorization = request.headers.authorization ?? '';
  if (!/^Basic \S+$/.test(authorization)) throw new GigachatSimError(401, "Can't decode 'Authorization' header", 4);
  const rqUid = request.headers.rquid;
  if (typeof rqUid !== 'string' || !uuidPattern.test(rqUid)) throw new GigachatSimError(400, 'RqUID header is required and must be a UUID', 5);
  const scope = new URLSearchParams((await readRawBody(request)).toString('utf8')).get('scope') ?? '';
  if (!scopes.has(scope)) throw new GigachatSimError(400, `scope ${JSON.stringify(scope)} is not one of GIGACHAT_API_PERS, GIGACHAT_API_B2B, GIGACHAT_API_CORP`, 7);
  const state = tokensOf(book);
  const token = `sim-gigachat-${randomBytes(12).toString('hex')}`;
  const expiresAt = Date.now() + tokenLifetimeMs;
  state.expiries.set(token, expiresAt);
  state.issued++;
  sendJsonAnswer(response, 200, { access_token: token, expires_at: expiresAt }, { 'x-sim-tokens-issued': String(state.issued) });
}

/** The bearer token of a request, refused (401) when missing, unknown or expired. */
export function requireToken(request: IncomingMessage, book: UsageBook): void {
  const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
  const expiresAt = match ? tokensOf(book).expiries.get(match[1]!) : undefined;
  if (expiresAt === undefined) throw new GigachatSimError(401, 'Unauthorized');
  if (Date.now() >= expiresAt) throw new GigachatSimError(401, 'Token has expired');
}

export function sendStats(response: ServerResponse, book: UsageBook): void {
  sendJsonAnswer(response, 200, { tokens_issued: tokensOf(book).issued });
}
